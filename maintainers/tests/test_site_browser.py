"""The site in a real browser: Debian's headless Chromium driven by Playwright (never `playwright install`).

Every page is opened from file:// with every request routed through a check: a
request for anything outside the site's folder is aborted and fails the test,
as does any console error or uncaught exception. The leaderboard's filters
and URL state must give the rows `atari5-spec leaderboard` gives, and the
scorer what `atari5-spec score` prints, to the printed precision.
"""

import csv
import io
import json
import math
import os
import random
import re
import shutil

import pytest

import atari5_spec
from atari5_spec.data.errors import InputError
from atari5_spec.method.pinned import load_coefficient_set
from site_helpers import HOSTILE_ID, HOSTILE_NAME

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# .ci/run sets ATARI5_SPEC_BROWSER_TESTS=required: in CI a missing browser fails the run instead of skipping.
REQUIRED = os.environ.get("ATARI5_SPEC_BROWSER_TESTS") == "required"


def _missing(reason):
    (pytest.fail if REQUIRED else pytest.skip)(reason)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        _missing("chromium is not installed (Debian: apt-get install -y chromium; .ci/run installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Visit:
    """A browser context whose every request must stay inside ``folder``; errors and dialogs are recorded."""

    def __init__(self, browser, folder, **options):
        self.folder = folder.resolve()
        self.context = browser.new_context(accept_downloads=True, **options)
        self.outside, self.errors, self.dialogs = [], [], []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        # Routing sees network requests; every request (file: ones included) is also checked as it is made.
        self.requests = []
        self.page.on("request", lambda r: self.requests.append(r.url))

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.folder.as_uri() + "/"):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def open(self, relative):
        self.page.goto(f"{self.folder.as_uri()}/{relative}")
        self.page.wait_for_load_state("load")
        return self.page

    def close(self):
        self.context.close()
        inside = self.folder.as_uri() + "/"
        self.outside += [u for u in self.requests if not u.startswith((inside, "blob:", "data:"))]
        assert self.requests, "no request was seen"
        assert not self.outside, f"requests left the folder: {self.outside}"
        assert not self.errors, f"console errors: {self.errors}"
        assert not self.dialogs, f"dialogs opened (a script ran): {self.dialogs}"


@pytest.fixture()
def visit(browser, site_folder):
    visits = []

    def make(folder=site_folder, **options):
        visits.append(Visit(browser, folder, **options))
        return visits[-1]
    yield make
    for v in visits:
        v.close()


def set_hash(page, fragment):
    """Change the hash and wait until the page has applied it (its share link then holds the new state)."""
    page.evaluate(f"location.hash = {json.dumps(fragment)}")
    # Polled from here: wait_for_function evaluates a string in the page, which the pages' CSP forbids.
    for _ in range(250):
        if page.evaluate("document.getElementById('share').getAttribute('href')") == "#" + fragment:
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"the page did not apply #{fragment}")


def shown_ids(page):
    return page.eval_on_selector_all("#leaderboard tbody tr:not([hidden])",
                                     "rows => rows.map(r => r.getAttribute('data-algorithm-id'))")


FILTERS = [
    ("", {}),
    ("regime=200M&sticky=yes", {"regime": "200M", "sticky": "yes"}),
    ("sticky=no", {"sticky": "no"}),
    ("sticky=unknown", {"sticky": "unknown"}),
    ("regime=atari-100k", {"regime": "atari-100k"}),
    ("frames=200000000", {"frames": 200000000}),
    ("regime=200m&sticky=yes&frames=200000000", {"regime": "200m", "sticky": "yes", "frames": 200000000}),
    ("frames=200M", {"frames": 200000000}),  # frames as people write them: an option's label
    ("sticky=not-stated", {"sticky": "not-stated"}),  # where the leaderboard knows this finer "unknown"
]


@pytest.mark.parametrize("fragment, filters", FILTERS, ids=[f or "none" for f, _ in FILTERS])
def test_hash_state_gives_the_rows_the_leaderboard_command_gives(visit, dataset, fragment, filters):
    try:
        board = atari5_spec.leaderboard(dataset=dataset, **filters)
    except InputError:
        pytest.skip(f"this leaderboard() has no filter {filters}")
    rows = board.rows
    if board.field is not None:  # the index ranks Atari-5 scores; the regime's field ranking is atari-100k.html
        rows = sorted((r for r in rows if r.estimate is not None), key=lambda r: (-r.estimate, r.algorithm_id))
    expected = [r.algorithm_id for r in rows]
    page = visit().open(f"index.html#{fragment}")
    assert shown_ids(page) == expected
    assert page.text_content("#row-count") == str(len(expected))
    total = page.eval_on_selector_all("#leaderboard tbody tr", "rows => rows.length")
    hidden = page.eval_on_selector_all("#leaderboard tbody tr[hidden]", "rows => rows.length")
    assert hidden == total - len(expected)
    ranks = page.eval_on_selector_all("#leaderboard tbody tr:not([hidden]) td.rank", "c => c.map(x => x.textContent)")
    assert ranks == [str(i + 1) for i in range(len(expected))]


def test_the_command_line_gives_the_same_rows(visit, run):
    """The page against the command itself (`atari5-spec leaderboard --regime 200M --sticky yes --json`)."""
    status, out, _ = run("leaderboard", "--regime", "200M", "--sticky", "yes", "--json")
    assert status == 0
    page = visit().open("index.html#regime=200M&sticky=yes")
    assert shown_ids(page) == [r["algorithm_id"] for r in json.loads(out)["rows"]]


def test_unknown_is_a_value_of_every_protocol_filter(visit, dataset):
    page = visit().open("index.html")
    for name in ("regime", "sticky", "frames", "year"):
        values = page.eval_on_selector(f"select[name={name}]", "s => Array.from(s.options).map(o => o.value)")
        assert "unknown" in values, name
    set_hash(page, "regime=unknown")
    rows = json.loads(page.text_content("#page-data"))["rows"]
    assert shown_ids(page) == [r["id"] for r in rows if r["regime"] is None]


def test_kind_year_all_games_and_text_filters(visit):
    page = visit().open("index.html#kind=agent&year=2020&all57=yes")
    rows = json.loads(page.text_content("#page-data"))["rows"]
    most = max(r["n_games"] for r in rows)
    expected = [r["id"] for r in rows if r["default"] and r["kind"] == "agent" and r["year"] == 2020
                and r["n_games"] == most]
    assert expected and shown_ids(page) == expected
    assert page.is_checked("input[name=all57]") and page.input_value("select[name=year]") == "2020"
    set_hash(page, "q=RAINBOW")
    ids = shown_ids(page)
    # a search looks through every row of the table, not only the default ones (issue 34), and since issue 48
    # through each entry's words (its paper title too: the DQN rows read from the Rainbow paper)
    texts = json.loads(page.text_content("#page-data"))["search"]["texts"]
    named = [r["id"] for r in rows if "rainbow" in r["name"].lower() or "rainbow" in r["id"]]
    assert ids == [r["id"] for r in rows if "rainbow" in texts[r["id"]][0]] and set(named) <= set(ids) and named


def test_controls_write_the_hash_and_a_link_restores_the_view(visit):
    v = visit()
    page = v.open("index.html")
    page.select_option("select[name=sticky]", "yes")
    page.fill("input[name=q]", "dreamer")
    assert "sticky=yes" in page.evaluate("location.hash") and "q=dreamer" in page.evaluate("location.hash")
    ids = shown_ids(page)
    assert ids and all("dreamer" in i for i in ids)
    link = page.evaluate("location.href")
    again = v.context.new_page()
    again.goto(link)
    assert shown_ids(again) == ids
    assert again.input_value("select[name=sticky]") == "yes" and again.input_value("input[name=q]") == "dreamer"


def test_columns_sort(visit):
    page = visit().open("index.html")
    page.click("th[data-sort=name]")
    names = page.eval_on_selector_all("#leaderboard tbody tr:not([hidden]) td:nth-child(2) bdi",
                                      "c => c.map(x => x.textContent)")
    assert names == sorted(names, key=str.lower) and len(names) > 10
    assert "sort=name" in page.evaluate("location.hash")
    page.click("th[data-sort=name]")
    reverse = page.eval_on_selector_all("#leaderboard tbody tr:not([hidden]) td:nth-child(2) bdi",
                                        "c => c.map(x => x.textContent)")
    assert reverse == sorted(names, key=str.lower, reverse=True)


def test_a_hostile_name_downloads_as_text_not_a_formula(visit, hostile_site):
    page = visit(hostile_site).open(f"index.html#q={HOSTILE_ID}")
    assert shown_ids(page) == [HOSTILE_ID]
    with page.expect_download() as info:
        page.click("#download-json")
    assert json.loads(open(info.value.path(), encoding="utf-8").read())["rows"][0]["name"] == HOSTILE_NAME
    with page.expect_download() as info:
        page.click("#download-csv")
    rows = list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8", newline="").read())))
    assert rows[0]["name"] == HOSTILE_NAME and rows[0]["algorithm_id"] == HOSTILE_ID


def test_downloads_hold_exactly_the_rows_shown(visit):
    page = visit().open("index.html#sticky=no&sort=year&dir=asc")
    shown = shown_ids(page)
    with page.expect_download() as info:
        page.click("#download-csv")
    rows = list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8").read())))
    assert [r["algorithm_id"] for r in rows] == shown
    assert all(r["sticky"] == "no" for r in rows)
    with page.expect_download() as info:
        page.click("#download-json")
    data = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert [r["algorithm_id"] for r in data["rows"]] == shown and data["filters"] == {"sticky": "no"}


# --- the scorer ----------------------------------------------------------------------------------------------

def printed(value):
    """As `atari5-spec score` prints a number."""
    return f"{value:,.1f}"


def scorer_inputs(dataset, n=36):
    """Five-game scores from the data's algorithms, scaled at random (seeded): estimates in range and below it."""
    games = load_coefficient_set().subsets["Atari-5"].games
    rows = dataset.scores[dataset.scores["use_in_fit"].astype(bool) & dataset.scores["game_id"].isin(games)]
    table = rows.groupby(["algorithm_id", "game_id"])["score"].first().unstack().dropna()
    rng = random.Random(28)
    picks = []
    for _ in range(n):
        base = table.iloc[rng.randrange(len(table))]
        factor = 10 ** rng.uniform(-1.5, 0.5)
        picks.append({g: round(float(base[g]) * factor * rng.uniform(0.8, 1.2), rng.choice([0, 1, 2])) for g in games})
    picks.append({g: 0 for g in games})          # below random on some games: clipped at zero
    picks.append({g: -5000 for g in games})      # far below random
    return picks


def read_scorer(page):
    return {name: page.text_content(f"#{name}") for name in ("estimate", "interval-low", "interval-high", "signature")}


def test_the_scorer_equals_python_over_many_inputs_in_both_ranges(visit, dataset):
    page = visit().open("score.html")
    ranges, estimates = set(), []
    for scores in scorer_inputs(dataset):
        fragment = "&".join(f"{g}={v}" for g, v in scores.items())
        set_hash(page, fragment)
        try:
            result = atari5_spec.score(scores, n_bootstrap=0)
        except atari5_spec.InputError:  # the input gate: the scorer refuses it too
            assert read_scorer(page)["estimate"] == "-" and "refused" in page.text_content("#coverage"), scores
            continue
        pi = result.prediction_interval
        ranges.add(pi.range if pi else None)
        estimates.append(result.estimate)
        assert read_scorer(page) == {"estimate": printed(result.estimate),
                                     "interval-low": printed(pi.low) if pi else "n/a",
                                     "interval-high": printed(pi.high) if pi else "n/a",
                                     "signature": result.signature}, scores
        shown = page.eval_on_selector_all("#protocol-messages li", "items => items.map(i => i.textContent)")
        assert shown == [f"protocol: {m}" for m in (result.protocol.messages if result.protocol else ())], scores
        others = page.eval_on_selector_all("#other-subsets tbody tr", "rows => rows.map(r => Array.from(r.cells)"
                                           ".map(c => c.textContent))")
        expected = [s for s in result.other_subsets if set(s.games) <= set(scores)]
        assert [o[0] for o in others] == [s.subset for s in expected]
        for row, s in zip(others, expected):
            assert row[1] == printed(s.estimate) and row[3] == s.signature
            spi = s.prediction_interval
            assert row[2].startswith(f"{printed(spi.low)} to {printed(spi.high)}" if spi else "n/a")
    from atari5_spec.method.calibration import IN_RANGE_MIN

    assert min(estimates) < IN_RANGE_MIN <= max(estimates), "inputs on both sides of the range"
    assert "in range" in ranges


def test_the_scorers_port_of_the_spec_reproduces_every_conformance_vector(visit):
    """static/site.js's port of SPEC.md (window.atari5Spec, what the scorer computes with) on conformance/vectors.json:
    every number within SPEC.md's tolerance, every printed string and null exactly."""
    from atari5_spec.data.datapackage import package_root

    vectors = json.loads((package_root() / "conformance" / "vectors.json").read_text(encoding="utf-8"))
    page = visit().open("score.html")
    got = page.evaluate("""vectors => {
      const s = window.atari5Spec, games = vectors.coefficients.games;
      const row = (c, interval, range) => vectors.interval_tables[c.calibration].find(r => r.interval === interval
        && r.subset === c.subset && r.range === range && r.level === c.level);
      const agent = (c, a) => {
        const m = vectors.coefficients.subsets[c.subset];
        const e = s.estimate(m.games, m.weights, games, a.scores);
        const pooled = vectors.interval_tables[c.calibration].some(r => r.range === "pooled");
        const range = s.rangeOf(e, pooled), r = row(c, "agent", range);
        const p = r && r.status !== "withheld" ? s.predictionInterval(e, range, r.half_width, a.seed_interval) : null;
        return {estimate: e, range: range, prediction_interval: p,
                printed: {estimate: s.printed(e, 1), prediction_interval: p && p.map(x => s.printed(x, 1))}};
      };
      return vectors.cases.map(c => {
        if (c.expected.refused) return null;  // refusals: the plain-number rule is checked below
        if (c.kind === "score") return agent(c, c);
        const a = agent(c, c.agent), b = agent(c, c.baseline), ratio = a.estimate / b.estimate;
        let p = null;
        if (a.prediction_interval && b.prediction_interval && a.estimate > 0) {
          const r = row(c, "ratio-same-setup", "in range");
          p = c.same_setup ? (r && r.status !== "withheld" ? s.sameSetupRatioInterval(a.estimate, b.estimate,
                r.half_width, c.ratio_seed_interval) : null)
            : s.ratioInterval(a.estimate, b.estimate, a.prediction_interval, b.prediction_interval);
        }
        const d = row(c, c.same_setup ? "direction-same-setup" : "direction-two-papers", "in range");
        const margin = d && d.status !== "withheld" ? d.factor : null;
        return {agent: a, baseline: b, ratio: ratio, ratio_interval: p, decision: p ? s.decision(p, ratio, margin) : null,
                printed: {ratio: s.printed(ratio, 3, true), ratio_interval: p && p.map(x => s.printed(x, 3, true))}};
      });
    }""", vectors)

    def close(expected, value):
        return abs(expected - value) <= 1e-9 * max(1.0, abs(expected))

    def same(expected, value, where):
        if expected is None or isinstance(expected, str):
            assert value == expected, where
        elif isinstance(expected, float):
            assert close(expected, value), where
        elif isinstance(expected, list):
            assert value is not None and len(value) == len(expected), where
            for i, (e, v) in enumerate(zip(expected, value)):
                same(e, v, f"{where}[{i}]")
        else:  # the fields the port returns
            for key, v in value.items():
                same(expected[key], v, f"{where}.{key}")

    assert len(got) == len(vectors["cases"]) >= 30
    for case, value in zip(vectors["cases"], got):
        if "refused" in case["expected"]:
            assert value is None, case["id"]
            continue
        same(case["expected"], value, case["id"])
    texts = {x for c in vectors["cases"] if c["kind"] == "score" for v in c["scores"].values() for x in v
             if isinstance(x, str)}
    assert texts and not any(page.evaluate("t => window.atari5Spec.plainNumber(t)", x) for x in texts)
    # the printing rule, ties included: correct rounding, ties to even on the exact binary64 value (Python's format)
    for x in (0.25, 0.35, 2.675, 1.0625, 1234567.25, -0.05, 0.15):
        for places in (1, 3):
            assert page.evaluate("([x, p]) => window.atari5Spec.printed(x, p)", [x, places]) == f"{x:,.{places}f}", x


@pytest.mark.parametrize("text", ["12,000", "12k", "1 200", "12.000,5", "0x10", "1e", "--3", "Infinity", "NaN"])
def test_the_scorer_refuses_what_is_not_a_plain_number_and_names_the_game(visit, text):
    """A thousands separator or a suffix is refused with a message naming the field, never misread (issue 34: "12,000"
    gave 109.5 on the page and 21.4 in the command; "12k" became 12)."""
    page = visit().open("score.html")
    for game, value in SCORED.items():
        page.fill(f"#input-{game}", str(value))
    assert page.text_content("#estimate") != "-"
    page.fill("#input-battle_zone", text)
    assert page.input_value("#input-battle_zone") == text  # kept as typed, not cut to a number
    assert page.text_content("#estimate") == "-" and page.text_content("#paste-line") == "-"
    message = page.text_content("#coverage")
    assert message.startswith("refused: Battle Zone:") and text in message and "12000" in message
    assert page.get_attribute("#input-battle_zone", "aria-invalid") == "true"
    page.fill("#input-battle_zone", "3.5e4")  # a plain number with an exponent is one
    assert page.text_content("#estimate") == printed(atari5_spec.score(dict(SCORED, battle_zone=35000),
                                                                       n_bootstrap=0).estimate)


SCORED = {"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000, "qbert": 15000}
BELOW_RANDOM = {"battle_zone": 1000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000, "qbert": 15000}


@pytest.mark.parametrize("scores, sticky, frames, cap", [
    (SCORED, "0.25", None, None), (SCORED, "0", None, None), (SCORED, None, "200000000", None),
    (SCORED, "0.25", "400000", None), (SCORED, None, None, None), (SCORED, None, None, "18000"),
    (BELOW_RANDOM, "0.25", "200000000", "108000")])
def test_the_scorer_equals_the_command_with_a_protocol(visit, run, scores, sticky, frames, cap):
    """score.html#... against the text `atari5-spec score` prints, protocol lines included."""
    page = visit().open("score.html")
    if cap and not page.query_selector("select[name=episode_cap]"):
        pytest.skip("this `score` has no --max-episode-frames")
    fragment = "&".join([f"{g}={v}" for g, v in scores.items()] + ([f"sticky={sticky}"] if sticky else [])
                        + ([f"frames={frames}"] if frames else []) + ([f"episode_cap={cap}"] if cap else []))
    set_hash(page, fragment)
    arguments = [a for g, v in scores.items() for a in ("--score", f"{g}={v}")]
    arguments += ["--sticky-actions", sticky] if sticky else []
    arguments += ["--frames", frames] if frames else []
    arguments += ["--max-episode-frames", cap] if cap else []
    status, out, _ = run("score", *arguments, "--explain")
    assert status == 0
    estimate = re.search(r"^Atari-5 score: (\S+)$", out, re.M).group(1)
    interval = re.search(r"prediction interval \(95%\): (\S+) to (\S+):", out)
    low, high = interval.groups() if interval else ("n/a", "n/a")  # a withheld interval: none printed
    signature = re.search(r"\[(Atari-5\|[^\]]+)\]", out).group(1)
    assert read_scorer(page) == {"estimate": estimate, "interval-low": low, "interval-high": high,
                                 "signature": signature}
    protocol = [line.strip() for line in out.splitlines() if line.strip().startswith("protocol: ")]
    shown = page.eval_on_selector_all("#protocol-messages li", "items => items.map(i => i.textContent)")
    assert shown == protocol
    paste = re.search(r"^  (Atari-5 score .*\])$", out, re.M).group(1)
    assert page.text_content("#paste-line") == paste


def test_typing_scores_updates_the_result_and_the_hash(visit):
    page = visit().open("score.html")
    assert page.text_content("#estimate") == "-"
    for game, value in {"battle_zone": "35000", "double_dunk": "-1.5", "name_this_game": "12000", "phoenix": "9000",
                        "qbert": "15000"}.items():
        page.fill(f"#input-{game}", value)
    expected = atari5_spec.score({"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000,
                                  "phoenix": 9000, "qbert": 15000}, n_bootstrap=0)
    assert page.text_content("#estimate") == printed(expected.estimate)
    assert "battle_zone=35000" in page.evaluate("location.hash")


# --- every page, hostile names, small screens --------------------------------------------------------------------

def test_every_page_opens_without_errors_or_outside_requests(visit, site_folder):
    v = visit()
    pages = ["index.html", "score.html", "sources.html", "cite.html", "downloads.html", "accuracy.html",
             "changelog.html", "algorithms/dreamerv3.html", "algorithms/dqn.html", "games/battle_zone.html",
             "games/pong.html", "compare.html"]
    for relative in pages:
        if (site_folder / relative).is_file():
            page = v.open(relative)
            assert page.text_content("#data-version").strip()
            assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("system-ui")  # CSS loaded
            assert "Aitchison, Sweetser and Hutter" in page.text_content("#citation")
    assert any(u.endswith("/static/site.js") for u in v.requests)


def test_the_request_check_can_fail(browser, site_folder):
    """The harness itself: a page that loads from outside is caught (so a passing test means something)."""
    v = Visit(browser, site_folder)
    v.page.set_content('<img src="https://example.invalid/x.png"><img src="file:///etc/hostname">')
    v.page.wait_for_timeout(200)
    v.context.close()
    seen = v.outside + [u for u in v.requests if not u.startswith(v.folder.as_uri() + "/")]
    assert any(u.startswith("https://example.invalid/") for u in seen)
    assert any(u == "file:///etc/hostname" for u in seen)


def test_a_hostile_name_is_shown_as_text(visit, hostile_site):
    v = visit(hostile_site)
    page = v.open("index.html#sticky=yes")
    assert HOSTILE_ID in shown_ids(page)
    cell = page.text_content(f"tr[data-algorithm-id='{HOSTILE_ID}'] td:nth-child(2) bdi")
    assert cell == HOSTILE_NAME
    assert page.evaluate("window.__pwned === undefined")
    page = v.open(f"algorithms/{HOSTILE_ID}.html")
    assert page.text_content("h1 bdi") == HOSTILE_NAME
    assert HOSTILE_NAME.split("</title>")[0] in page.title()
    assert page.evaluate("window.__pwned === undefined && document.querySelectorAll('main img, main script').length === 0")


def test_a_phone_viewport_still_reads(visit, tmp_path):
    v = visit(viewport={"width": 375, "height": 740}, device_scale_factor=2, is_mobile=True, has_touch=True)
    scored = "score.html#battle_zone=35000&double_dunk=-1.5&name_this_game=12000&phoenix=9000&qbert=15000&sticky=0.25"
    for relative in ("index.html", scored, "algorithms/dreamerv3.html", "games/qbert.html", "sources.html"):
        page = v.open(relative)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"{relative}: the page is {width} px wide on a 375 px screen"
        size = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
        assert size >= 13
        heading = page.eval_on_selector("h1", "h => h.getBoundingClientRect().right")
        assert heading <= 375
        page.screenshot(path=str(tmp_path / (relative.split(".html")[0].replace("/", "_") + ".png")))
    page = v.open("index.html")
    assert page.is_visible("#row-count") and page.is_visible("select[name=regime]")
    box = page.eval_on_selector("#leaderboard", "t => t.closest('.scroll').getBoundingClientRect().width")
    assert math.isclose(box, 375 - 32, abs_tol=2)  # the table scrolls inside its box, the page does not


def test_the_atari_100k_page_lists_the_field_in_the_commands_order(visit, run):
    status, out, _ = run("leaderboard", "--only-regime", "atari-100k", "--json")
    assert status == 0
    page = visit().open("atari-100k.html")
    shown = page.eval_on_selector_all("#field-leaderboard tbody tr", "rows => rows.map(r => r.getAttribute('data-algorithm-id'))")
    assert shown == [r["algorithm_id"] for r in json.loads(out)["rows"]]
    assert page.is_visible("nav >> text=Atari 100k")


# --- issue 34: paper links, game pages that rank and plot, the indexes ----------------------------------------------

def test_every_algorithm_page_has_a_paper_link_or_a_stated_reason(visit, site_folder, dataset):
    """Every entry is linked from the algorithms index; each page's Paper section links an arXiv id or DOI or
    says why there is none (all pages read as text; a sample opened in the browser)."""
    page = visit().open("algorithms.html")
    linked = page.eval_on_selector_all("main table a[href^='algorithms/']", "a => a.map(x => x.getAttribute('href'))")
    assert sorted(linked) == sorted(f"algorithms/{a}.html" for a in dataset.algorithms.algorithm_id)
    urls = dataset.paper_links.set_index("algorithm_id").query("link_kind == 'url'").link.to_dict()
    for relative in linked:
        html = (site_folder / relative).read_text(encoding="utf-8")
        paper = re.search(r'<p class="paper">(.*?)</p>', html, re.S)
        assert paper, relative
        url = urls.get(relative[len("algorithms/"):-len(".html")])  # a page as the paper (SLM-Lab 2019's benchmark)
        assert (url and f'href="{url}"' in paper.group(1)) or \
            re.search(r'href="https://(arxiv\.org/abs/[0-9]{4}\.[0-9]{4,5}|doi\.org/10\.)', paper.group(1)) or \
            "no link: " in paper.group(1), relative
    for relative in linked[::17]:
        p = visit().open(relative)
        text = p.text_content("p.paper")
        assert "arXiv:" in text or "doi:" in text or "no link:" in text or "https://" in text
        assert "@misc" in p.text_content("details") or "no link:" in text
        assert "Aitchison" in p.text_content("details")  # the Atari-5 BibTeX beside the paper's


def test_a_game_page_sorts_by_keyboard_without_scrolling_and_plots(visit):
    page = visit().open("games/montezuma_revenge.html")
    assert page.locator("main svg.chart").count() == 1 and "best published score" in page.text_content("main svg")
    raw = "main table.sortable-static tbody tr[data-algorithm-id] td:nth-child(3)"

    def values():
        return [float(v.replace(",", "")) for v in page.eval_on_selector_all(raw, "c => c.map(x => x.textContent)")]
    assert values() == sorted(values(), reverse=True)
    header = page.locator("main table.sortable-static th", has_text="raw")
    header.focus()
    before = page.evaluate("window.scrollY")
    page.keyboard.press(" ")
    assert page.evaluate("window.scrollY") == before  # Space sorts, it does not scroll the page
    assert header.get_attribute("aria-sort") == "ascending" and values() == sorted(values())
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "descending"
    page.locator("main table.sortable-static th", has_text="year").click()
    years = page.eval_on_selector_all("main table.sortable-static tbody tr[data-algorithm-id] td:nth-child(5)",
                                      "c => c.map(x => x.textContent)")
    known = [int(y) for y in years if y != "-"]
    assert known == sorted(known, reverse=True) and len(known) > 20
    assert page.locator("tr.reference").count() == 2  # the human and random reference rows
    page.click("main details summary")
    assert "Go-Explore" in page.text_content("main details") and "43,791.00" in page.text_content("main details")


def test_the_games_index_is_in_the_navigation_and_reaches_every_game(visit, dataset):
    page = visit().open("index.html")
    page.click("nav a[href='games.html']")
    links = page.eval_on_selector_all("main table a[href^='games/']", "a => a.map(x => x.getAttribute('href'))")
    assert sorted(links) == sorted(f"games/{g}.html" for g in dataset.games.game_id)
    assert page.locator("a.skip").count() == 1 and page.locator("#main").count() == 1


def test_search_finds_entries_outside_the_default_rows_and_points_at_unranked_pages(visit):
    page = visit().open("index.html")
    rows = json.loads(page.text_content("#page-data"))["rows"]
    assert not any(r["default"] for r in rows if r["name"] == "BBF")
    page.fill("input[name=q]", "BBF")
    ids = shown_ids(page)
    assert "bbf" in ids and all("bbf" in i for i in ids)
    page.fill("input[name=q]", "Go-Explore")  # excluded from the leaderboard: its page is offered instead
    assert page.is_visible("#search-more") and "algorithms/go-explore.html" in page.inner_html("#search-more-list")
    page.fill("input[name=q]", "")
    assert page.is_hidden("#search-more")


def searched(page, query):
    """The ids shown and the unranked pages offered for ``query``, and the search note's text ('' when hidden)."""
    page.fill("input[name=q]", query)
    offered = page.eval_on_selector_all("#search-more-list a", "a => a.map(x => x.getAttribute('href'))")
    more = [h[len("algorithms/"):-len(".html")] for h in offered] if page.is_visible("#search-more") else []
    note = page.text_content("#search-note") if page.is_visible("#search-note") else ""
    return shown_ids(page), more, " ".join(note.split())


@pytest.mark.parametrize("query, expected, typo", [
    ("dreamr", {"dreamerv2", "dreamerv3"}, True), ("agnet57", {"agent57"}, True), ("Agent 57", {"agent57"}, False),
    ("AGENT-57", {"agent57"}, False), ("go explore", {"go-explore", "go-explore-2021"}, False),
    ("Dreamer V3", {"dreamerv3"}, False), ("muzeor", {"muzero"}, True)])
def test_search_forgives_typos_and_spacing(visit, query, expected, typo):
    page = visit().open("index.html")
    ids, more, note = searched(page, query)
    assert expected <= set(ids + more), (query, ids, more)
    assert ("near spelling" in note) == typo, note  # a typo is said to be one
    if query in ("agnet57", "Agent 57", "AGENT-57"):
        assert ids + more == ["agent57"]
    if query.startswith("dream"):
        assert all("dreamer" in i for i in ids + more), ids + more


def test_search_finds_the_entries_of_a_game_by_its_name_and_id(visit, dataset):
    page = visit().open("index.html")
    rows = json.loads(page.text_content("#page-data"))["rows"]
    unranked = {e[0] for e in json.loads(page.text_content("#page-data"))["entries"]}
    played = set(dataset.scores.loc[dataset.scores["game_id"] == "montezuma_revenge", "algorithm_id"])
    for query in ("Montezuma", "montezuma_revenge", "Montezuma's Revenge", "montezuma revenge"):
        ids, more, _ = searched(page, query)
        assert set(ids) == {r["id"] for r in rows} & played and set(more) == unranked & played, query
    assert len(ids) > 50 and "go-explore" in more  # Go-Explore, famous for the game, is excluded: its page


def test_search_finds_entries_by_arxiv_id_doi_and_author(visit, dataset):
    page = visit().open("index.html")
    links = dataset.paper_links
    dreamer = links.loc[links["algorithm_id"] == "dreamerv3", ["link_kind", "link"]].iloc[0].tolist()
    assert dreamer == ["arxiv", "2301.04104"]
    expected = set(links.loc[links["link"] == "2301.04104", "algorithm_id"])
    for query in ("2301.04104", "arXiv:2301.04104", "230104104"):
        ids, more, _ = searched(page, query)
        assert set(ids + more) == expected and "dreamerv3" in ids, query
    doi = links.loc[(links["link_kind"] == "doi") & (links["algorithm_id"] == "go-explore"), "link"].iloc[0]
    ids, more, _ = searched(page, doi)
    assert set(ids + more) == set(links.loc[links["link"] == doi, "algorithm_id"]) and "go-explore" in more
    authors = links["authors"].fillna("")
    expected = set(links.loc[authors.str.contains(r"(?:^|and )Hafner,", regex=True), "algorithm_id"])
    ids, more, _ = searched(page, "hafner")
    assert "dreamerv2" in expected and set(ids + more) == expected


def test_search_says_so_when_nothing_matches(visit):
    page = visit().open("index.html")
    ids, more, note = searched(page, "xyzzyq")
    assert ids == [] and more == [] and page.is_hidden("#search-more")
    assert note == "No entry matches \u2018xyzzyq\u2019; search by name, paper, author, arXiv id or game."
    assert page.evaluate("document.getElementById('search-more-count').textContent") == "0"
    set_hash(page, "regime=atari-100k&q=agent57")  # found, but hidden by a filter: said so, not "no entry"
    note = " ".join(page.text_content("#search-note").split())
    assert shown_ids(page) == [] and note.startswith("No row shown matches \u2018agent57\u2019 with these filters")
    ids, more, note = searched(page, "")
    assert note == "" and page.is_hidden("#search-note")


def test_without_javascript_the_controls_say_so_and_are_disabled(browser, site_folder):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((site_folder / "index.html").as_uri())
    assert page.is_disabled("select[name=regime]") and page.is_disabled("input[name=q]")
    assert page.is_disabled("#download-csv")
    assert "need JavaScript" in page.inner_html("noscript")
    context.close()


def test_the_filter_legend_counts_and_explains_unknown_and_not_stated(visit):
    page = visit().open("index.html")
    rows = json.loads(page.text_content("#page-data"))["rows"]
    legend = page.text_content("details.legend")
    for value in ("unknown", "not-stated"):
        count = sum(value in r["sticky_groups"] for r in rows)
        assert f"sticky = {value} ({count} of {len(rows)})" in " ".join(legend.split())
    assert "not a stated 0" in legend


AXE = os.environ.get("ATARI5_SPEC_AXE")  # .ci/run installs axe-core with npm and points here at axe.min.js


def test_axe_core_finds_no_serious_or_critical_violation(browser, site_folder):
    """axe-core (npm axe-core, run in the page) on the page kinds of the site: no serious or critical rule fails."""
    if not AXE or not os.path.isfile(AXE):
        _missing("axe-core is not installed (npm install axe-core; set ATARI5_SPEC_AXE to its axe.min.js)")
    source = open(AXE, encoding="utf-8").read()
    context = browser.new_context(bypass_csp=True)  # the pages' CSP allows only their own scripts
    page = context.new_page()
    found = {}
    for relative in ("index.html", "games.html", "algorithms.html", "games/montezuma_revenge.html",
                     "algorithms/dreamerv3.html", "algorithms/rainbow.html", "atari-100k.html", "score.html",
                     "sources.html", "downloads.html", "cite.html", "accuracy.html", "changelog.html",
                     "compare.html?a=c51&b=qr-dqn-1", "index.html#q=dreamr", "index.html#q=xyzzyq"):
        path, _, fragment = relative.partition("#")  # a search: its note and list shown
        path, _, query = path.partition("?")
        if not (site_folder / path).is_file():
            continue
        page.goto((site_folder / path).as_uri() + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else ""))
        if query:  # the comparison, with its collapsed table open
            page.click("#compare-57 summary")
        page.evaluate(source)
        violations = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations"
                                   ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                                   ".map(v => v.id + ' ' + v.nodes.length))")
        if violations:
            found[relative] = violations
    context.close()
    assert not found, found


# --- the comparison page (issue 34 item 4) -----------------------------------------------------------------------

# (agent, baseline): two papers and same setup, each decision and none, episode caps, an entry lacking a game on
# either side, an agent without an interval (estimate below 40).
COMPARE_PAIRS = [
    ("dqn-noop", "rainbow-noop"),                       # two papers: excludes 1, inside the decision margin
    ("dqn-noop", "agent57"),                            # two papers: lower
    ("agent57", "dqn-noop"),                            # two papers: higher
    ("rainbow-noop", "dqn-noop"),                       # two papers, the baseline with a recorded standard cap
    ("c51", "qr-dqn-1"),                                # same setup: excludes 1, inside the decision margin
    ("dqn-noop", "ddqn-noop"),                          # same setup: cannot tell
    ("ngu-32-0", "r2d2-retrace"),                       # same setup, both with a recorded cap (108,000)
    ("nature-dqn", "muzero"),                           # an 18,000-frame cap, the agent below 40: no interval
    ("go-explore-2021", "dqn-noop"),                    # a 400,000-frame cap: no direction stated
    ("dqn-noop", "bootstrapped-dqn-2016-ref-nature"),   # the baseline lacks a game
    ("bootstrapped-dqn-2016-ref-nature", "dqn-noop"),   # the agent lacks a game
    ("neuroevolution-2014-ref-random", "dqn-noop"),     # no interval: the agent's estimate is below 40
    ("neat-object", "cne-object"),                      # same setup, 50,000-frame caps
]


def compare_page(visit, a, b):
    page = visit().open(f"compare.html?a={a}&b={b}")
    assert page.input_value("#compare-a") == a and page.input_value("#compare-b") == b
    return page


def expected_command(a, b):
    """The command `score --relative-to` is run with for the pair, from the package (not from the page)."""
    from atari5_spec.scoring.baselines import algorithm_baseline, shares_setup

    agent, baseline = algorithm_baseline(a), algorithm_baseline(b)
    games = load_coefficient_set(None).subsets["Atari-5"].games
    arguments = [x for g in games if g in agent.scores for x in ("--score", f"{g}={agent.scores[g]!r}")]
    arguments += ["--relative-to", b] + (["--same-setup"] if shares_setup(agent, baseline) else [])
    arguments += ["--max-episode-frames", str(agent.max_episode_frames)] if agent.max_episode_frames else []
    return arguments


@pytest.mark.parametrize("a, b", COMPARE_PAIRS, ids=[f"{a}-vs-{b}" for a, b in COMPARE_PAIRS])
def test_the_comparison_page_prints_what_score_relative_to_prints(visit, run, a, b):
    """compare.html?a=A&b=B against `atari5-spec score --score ... --relative-to B`: the ratio lines, character
    for character (ratio, both scores, the interval, its design, the decision, the evidence, the paste line)."""
    page = compare_page(visit, a, b)
    arguments = expected_command(a, b)
    shown = page.text_content("#compare-command").split()
    assert shown[:2] == ["atari5-spec", "score"]
    assert [w if "=" not in w else w.split("=")[0] for w in shown[2:]] == \
           [w if "=" not in w else w.split("=")[0] for w in arguments]  # the same options, in the same order
    assert [float(w.split("=")[1]) for w in shown[2:] if "=" in w] == \
           [float(w.split("=")[1]) for w in arguments if "=" in w]      # the same numbers
    status, out, err = run("score", *arguments)
    ratio_block = out.split("\n\n")[0]
    assert page.text_content("#ratio-lines") == ratio_block
    assert status == (0 if "not computable" not in ratio_block else 1)
    if "--same-setup" in arguments:
        assert ", same setup:" in ratio_block or "prediction interval" not in ratio_block


def test_the_comparison_pairs_cover_every_kind_of_answer(visit):
    """The pairs above hold both designs, every decision the answer can give, no interval, and a missing game."""
    from atari5_spec.scoring.intervals import DECISION_WITHIN_MARGIN

    seen = set()
    for a, b in COMPARE_PAIRS:
        lines = compare_page(visit, a, b).text_content("#ratio-lines")
        seen.add("same setup" if ", same setup:" in lines else "two papers" if "prediction interval for" in lines
                 else "none")
        seen.update(re.findall(r"^decision: (.*)$", lines, re.M))
        seen.update(re.findall(r"not computable: (your agent|the baseline) lacks", lines))
    assert {"same setup", "two papers", "none", "your agent", "the baseline", "your agent's 57-game median is higher",
            "your agent's 57-game median is lower", "cannot tell which is higher (the interval holds 1)",
            "cannot be decided here (see --explain)", DECISION_WITHIN_MARGIN} <= seen, seen


@pytest.mark.parametrize("a, b", [("go-explore-2021", "dqn-noop"), ("c51", "qr-dqn-1"), ("dqn-noop", "rainbow-noop")])
def test_the_comparison_page_states_why_as_the_python_api_does(visit, a, b):
    """The page's "Why" is the ratio interval's statement from relative_score (the reasons no direction is given)."""
    from atari5_spec.scoring.baselines import algorithm_baseline, shares_setup
    from atari5_spec.scoring.relative import relative_score

    agent = algorithm_baseline(a)
    result = relative_score(agent.scores, b, n_bootstrap=0, same_setup=shares_setup(agent, algorithm_baseline(b)),
                            max_episode_frames=agent.max_episode_frames)
    page = compare_page(visit, a, b)
    assert page.text_content("#ratio-statement") == "Why: " + result.prediction_interval.statement
    assert page.text_content("#estimate-a") == printed(result.agent.estimate)
    assert page.text_content("#estimate-b") == printed(result.baseline.estimate)


def test_the_comparison_tables_show_both_entries_numbers(visit):
    from atari5_spec.scoring.baselines import algorithm_baseline

    page = compare_page(visit, "dqn-noop", "rainbow-noop")
    a, b = algorithm_baseline("dqn-noop"), algorithm_baseline("rainbow-noop")
    five = page.eval_on_selector_all("#compare-five tbody tr", "rows => rows.map(r => [r.getAttribute('data-game'),"
                                     " r.cells[1].textContent, r.cells[3].textContent])")
    assert five == [[g, f"{a.scores[g]:,.2f}", f"{b.scores[g]:,.2f}"] for g, _, _ in five] and len(five) == 5
    constants = load_coefficient_set(None).constants
    in_57 = {g for g in constants if g in a.scores and g in b.scores}
    in_the_57 = set(atari5_spec.load().games.set_index("game_id").query("in_57").index)  # loaded once, not per game
    both = [g for g in in_57 if g in in_the_57]
    assert not page.is_visible("#compare-all")  # collapsed
    page.click("#compare-57 summary")
    assert page.is_visible("#compare-all")
    assert int(page.text_content("#n-57")) == len(both) == page.eval_on_selector_all("#compare-all tbody tr",
                                                                                     "rows => rows.length")


def test_the_comparison_is_keyboard_operable_and_kept_in_the_link(visit):
    page = visit().open("compare.html")
    assert page.text_content("#compare-status") == "choose two algorithms"
    page.focus("#compare-a")
    page.keyboard.press("ArrowDown")
    first = page.input_value("#compare-a")
    assert first and page.text_content("#compare-status") == "choose the second algorithm"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "compare-b"
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    second = page.input_value("#compare-b")
    assert second and page.text_content("#ratio-lines").startswith(f"ratio to {second}: ")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "swap"
    page.keyboard.press("Enter")
    assert (page.input_value("#compare-a"), page.input_value("#compare-b")) == (second, first)
    link = page.get_attribute("#share", "href")
    assert link == f"compare.html?a={second}&b={first}"
    again = visit().open(link)
    assert (again.input_value("#compare-a"), again.input_value("#compare-b")) == (second, first)
    assert again.text_content("#ratio-lines") == page.text_content("#ratio-lines")


def test_algorithm_pages_and_the_navigation_lead_to_the_comparison(visit):
    page = visit().open("algorithms/dqn-noop.html")
    assert page.get_attribute("nav a[href='../compare.html']", "href")
    page.click("a.compare-link")
    page.wait_for_load_state("load")
    assert page.input_value("#compare-a") == "dqn-noop"
    assert page.text_content("#compare-status") == "choose the second algorithm"


def test_without_javascript_the_comparison_gives_the_command(browser, site_folder):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((site_folder / "compare.html").as_uri() + "?a=c51&b=qr-dqn-1")
    assert page.is_disabled("#compare-a") and page.is_disabled("#swap")
    note = page.inner_html("noscript")
    assert "JavaScript, which is off" in note and "atari5-spec score --score battle_zone=N" in note
    assert "--relative-to BASELINE_ID" in note and "--same-setup" in note
    context.close()


def test_the_scorer_refuses_what_the_command_refuses(visit):
    """Issue 45: Battle Zone 2e9 and 1e300, Double Dunk 150 and five human-normalised fractions are refused by
    `score` (the input gate) and by the web scorer, with the bounds the build exported."""
    page = visit().open("score.html")
    good = {"battle_zone": 31000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 8000, "qbert": 15000}
    cases = [dict(good, battle_zone=2000000000), dict(good, battle_zone="1e300"), dict(good, double_dunk=150),
             {"battle_zone": 0.5, "double_dunk": 0.6, "name_this_game": 0.7, "phoenix": 0.5, "qbert": 0.6}]
    for scores in cases:
        with pytest.raises(atari5_spec.InputError):
            atari5_spec.score(scores, n_bootstrap=0)
        set_hash(page, "&".join(f"{g}={v}" for g, v in scores.items()))
        assert read_scorer(page)["estimate"] == "-" and "refused" in page.text_content("#coverage"), scores
    set_hash(page, "&".join(f"{g}={v}" for g, v in good.items()))
    assert read_scorer(page)["estimate"] == printed(atari5_spec.score(good, n_bootstrap=0).estimate)


@pytest.mark.parametrize("relative", ["index.html#q=%E0%A4%A&sticky=yes", "compare.html?a=c51&b=%zz#x=%",
                                      "score.html#battle_zone=%E2%82"])
def test_a_link_that_does_not_decode_is_ignored_not_an_error(visit, relative):
    """A malformed percent-escape in a link (issue 47) threw URIError in the URL readers and blanked the page; now
    the part is ignored and the rest of the link still applies."""
    v = visit()
    page = v.open(relative)
    assert page.text_content("body").strip()
    if relative.startswith("index"):
        assert page.input_value("select[name=sticky]") == "yes" and shown_ids(page)
    if relative.startswith("compare"):
        assert page.input_value("#compare-a") == "c51"
    # v.close() (the fixture) asserts no console error and no page error was recorded
