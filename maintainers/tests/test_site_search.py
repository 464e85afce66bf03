"""What the leaderboard's search looks through (site/search.py, issue 48 item 3): one text per entry, built in
Python, the games as a mask; the browser tests (test_site_browser.py -k search) check the matching."""

import atari5_spec
from atari5_spec_maintainers.site.papers import paper_links
from atari5_spec_maintainers.site.search import game_mask, search_index, words


def positions(mask):
    return {4 * k + b for k, digit in enumerate(mask) for b in range(4) if int(digit, 16) >> b & 1}


def test_words_are_folded_split_and_also_run_together():
    assert words("Montezuma's Revenge") == {"montezuma", "s", "revenge", "montezumasrevenge"}
    assert words("Puigdomènech BADIA") == {"puigdomenech", "badia", "puigdomenechbadia"}
    assert words("arXiv:2301.04104") == {"arxiv", "2301", "04104", "arxiv230104104"}
    assert words("Agent57") == {"agent57"} and words(None) == set() and words(float("nan")) == set()
    assert words("Straße") == {"strasse"}  # casefolded, as the page's script folds it


def test_the_game_mask_holds_exactly_the_positions_given():
    for given in (set(), {0}, {3, 4}, {0, 1, 2, 3, 61}, set(range(62))):
        mask = game_mask(given, 62)
        assert len(mask) == 16 and positions(mask) == given


def test_every_entry_has_a_text_with_its_paper_link_authors_and_games():
    dataset = atari5_spec.load()
    links = paper_links(dataset)
    index = search_index(dataset, links)
    assert sorted(index["texts"]) == sorted(dataset.algorithms["algorithm_id"])
    games = sorted(dataset.games["game_id"])
    assert len(index["games"]) == len(games) and "montezumarevenge" in index["games"][games.index("montezuma_revenge")]
    for algorithm_id, (text, mask) in index["texts"].items():
        found = set(text.split())
        assert text == " ".join(sorted(found))  # sorted, one word once: the same data gives the same bytes
        assert {games[i] for i in positions(mask)} == set(
            dataset.scores.loc[dataset.scores["algorithm_id"] == algorithm_id, "game_id"])
        link = links.get(algorithm_id, {})
        if link.get("kind") == "arxiv":
            assert link["link"].replace(".", "") in found and f"arxiv{link['link'].replace('.', '')}" in found
        for name in (link.get("authors") or "").split(" and "):
            if name and name != "others":
                assert words(name.partition(", ")[0]) <= found, (algorithm_id, name)
    assert "hafner" in index["texts"]["dreamerv2"][0].split()
    assert search_index(dataset, links) == index
