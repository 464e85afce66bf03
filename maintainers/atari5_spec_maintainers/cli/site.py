"""The ``site`` subcommand of ``atari5-spec``: the static web home (leaderboard, pages, scorer) as a folder."""

from __future__ import annotations

import argparse

from atari5_spec.cli.options import add_package_option

__all__ = ["add_site_commands"]

SITE_HELP = "write the static web home: the leaderboard, a page per algorithm and game, the scorer, downloads"
SITE_DESCRIPTION = """\
Write the data package's web home as one folder of plain HTML: index.html (the
leaderboard with filters, sorting, the view in the URL, downloads of the rows
shown), algorithms/<id>.html, games/<id>.html, score.html (the scorer, equal to
`atari5-spec score` for one value per game), sources.html, cite.html,
downloads.html (the export zip and CSVs with sha256), accuracy.html and
changelog.html. Nothing is loaded from outside: open DIR/index.html from the
file system, a zip, or any static host. The same package gives the same bytes.
DIR must be outside any data package; an earlier site there is replaced."""


def add_site_commands(commands) -> None:
    """Register ``site`` on the main parser's subparsers."""
    p = commands.add_parser("site", help=SITE_HELP, description=SITE_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="the site's folder (outside any data package)")
    p.add_argument("--docs-url", default=None, metavar="URL",
                   help="the documentation's http(s) address (default: ../docs/, beside the site's folder, as "
                        ".github/workflows/pages.yml publishes it)")
    add_package_option(p)
    p.set_defaults(run=_cmd_site)


def _cmd_site(args) -> int:
    from atari5_spec_maintainers.site.build import build_site

    result = build_site(args.out, args.path, args.docs_url)
    print(f"wrote {result.folder}/ ({result.n_files} files, {result.n_bytes:,} bytes; data package "
          f"{result.data_version}): open {result.folder}/index.html")
    return 0
