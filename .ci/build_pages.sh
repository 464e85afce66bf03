#!/usr/bin/env bash
# The GitHub Pages home (.github/workflows/pages.yml), written into OUT:
#
#   OUT/v<data version>/   the site (`atari5-spec site`) of every release whose code has the command, each
#                          built by its own code from its own data, so a citation points at a dated page
#   OUT/latest/            the site of the checked-out commit (on a release: the release)
#   OUT/docs/              the documentation of the checked-out commit (Sphinx, from docs/), which every page
#                          links as ../docs/
#   OUT/index.html         a link (and a redirect without script) to latest/
#
# Usage: bash .ci/build_pages.sh OUT   (from the repository root, with the tags fetched)
set -euo pipefail
out="${1:?usage: bash .ci/build_pages.sh OUT}"
repo="$PWD"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/atari5-spec-pages-XXXXXX")"
cleanup() {
  git -C "$repo" worktree prune
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$out"
out="$(cd "$out" && pwd)"

data_version() {  # data_version TREE: the version in TREE/datapackage.json
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["version"])' "$1/datapackage.json"
}

build_site() {  # build_site TREE NAME: install TREE's code in its own environment, write its site into OUT/NAME
  local tree="$1" name="$2" venv="$scratch/venv-$2"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet "$tree"
  rm -rf "${out:?}/$name"
  (cd "$scratch" && "$venv/bin/atari5-spec" site --package "$tree" --out "$out/$name")
}

# Earlier releases first, so that a later release of the same data version wins its folder.
head_commit="$(git rev-parse HEAD)"
while IFS= read -r tag; do
  [[ -n "$tag" ]] || continue
  [[ "$(git rev-parse "$tag^{commit}")" == "$head_commit" ]] && continue  # built below, as latest
  tree="$scratch/tree-$tag"
  git worktree add --quiet --detach "$tree" "$tag"
  if [[ -f "$tree/maintainers/atari5_spec_maintainers/site/build.py" ]]; then
    build_site "$tree" "v$(data_version "$tree")"
  else
    echo "$tag: no \`atari5-spec site\` in that release; no page for it"
  fi
done < <(git tag --list 'v*' --sort=version:refname)

version="$(data_version "$repo")"
build_site "$repo" "v$version"
cp -R "$out/v$version" "$out/latest"

if [[ -f docs/conf.py ]]; then
  python3 -m venv "$scratch/docs"
  "$scratch/docs/bin/python" -m pip install --quiet --upgrade pip
  "$scratch/docs/bin/python" -m pip install --quiet "${repo}[docs]"
  "$scratch/docs/bin/python" -c "import sphinx" || { echo "docs: Sphinx is not installed by the docs extra"; exit 1; }
  "$scratch/docs/bin/python" -m sphinx -W --keep-going -b html docs "$out/docs"
else
  echo "docs/conf.py is missing: no documentation site"; exit 1
fi

cat > "$out/index.html" <<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>atari5-spec</title>
<meta http-equiv="refresh" content="0; url=latest/index.html"></head>
<body><p><a href="latest/index.html">The Atari-5 leaderboard (data package $version)</a> ·
<a href="docs/index.html">documentation</a></p></body></html>
HTML
echo "pages: $(find "$out" -type f | wc -l) files in $out (latest: data package $version)"
