from __future__ import annotations

import sqlite3

from structcrawl.entities import (
    SqliteEntityStore,
    add_record,
    entity_view,
    hoist,
    is_entity,
    new_state,
    precedence_ranks,
)
from structcrawl.entities.merge import DEFAULT_PRECEDENCE

RANKS = precedence_ranks(DEFAULT_PRECEDENCE)


def rec(fmt, props, *, id=None, type=("Product",), fields=None, kind="entity", element="/x"):
    return {
        "kind": kind,
        "format": fmt,
        "type": list(type),
        "id": id,
        "properties": props,
        "source_element": element,
        "provenance": {"fields": fields or {}},
    }


def offer(price, currency="USD"):
    return rec("json-ld", {"price": price, "priceCurrency": currency}, type=("Offer",))


def test_highest_precedence_wins_and_disagreements_are_conflicts():
    state = new_state("id:p")
    add_record(
        state,
        rec("rdfa", {"name": "Shoe", "offers": offer("119.99")}),
        page_url="u1",
        retrieved_at="2026-01-02T00:00:00Z",
        ranks=RANKS,
    )
    add_record(
        state,
        rec(
            "json-ld",
            {"name": " shoe ", "offers": offer("129.99")},
            fields={"name": [{"path": "/s#$.name", "raw": " shoe "}]},
        ),
        page_url="u1",
        retrieved_at="2026-01-01T00:00:00Z",
        ranks=RANKS,
    )
    add_record(
        state,
        rec("microdata", {"name": "Shoe", "offers": offer("129.990")}),
        page_url="u2",
        retrieved_at="2026-01-03T00:00:00Z",
        ranks=RANKS,
    )
    view = entity_view(state)
    assert view["properties"]["offers"] == {
        "@type": ["Offer"],
        "price": "129.99",
        "priceCurrency": "USD",
    }
    # "Shoe" / " shoe " compare equal (case, whitespace); 129.99 / 129.990 equal as numbers
    assert view["properties"]["name"] == "Shoe"
    (conflict,) = view["conflicts"]
    assert conflict["field"] == "offers.price" and conflict["chosen"] == "129.99"
    assert {(v["value"], tuple(v["formats"])) for v in conflict["values"]} == {
        ("119.99", ("rdfa",)),
        ("129.99", ("json-ld", "microdata")),
    }
    assert view["formats"] == ["json-ld", "microdata", "rdfa"]  # precedence order
    assert (
        view["first_seen"] == "2026-01-01T00:00:00Z" and view["last_seen"] == "2026-01-03T00:00:00Z"
    )
    assert view["sightings"] == 3
    assert {
        "url": "u1",
        "format": "json-ld",
        "path": "/s#$.name",
        "raw": " shoe ",
        "value": "Shoe",
    } in [{**p, "value": "Shoe"} for p in view["provenance"]["name"]]


def test_nested_entities_with_an_id_are_hoisted_and_referenced():
    org = rec("json-ld", {"name": "Org"}, id="https://x/#org", type=("Organization",))
    article = rec("json-ld", {"headline": "H", "publisher": org}, type=("Article",))
    found = hoist(article)
    assert [r["type"] for r in found] == [["Article"], ["Organization"]]
    state = new_state("a")
    add_record(state, article, page_url="u", retrieved_at=None, ranks=RANKS)
    assert entity_view(state)["properties"]["publisher"] == {"@id": "https://x/#org"}


def test_what_counts_as_an_entity():
    assert is_entity(rec("json-ld", {}))
    assert not is_entity(rec("json-ld", {}, kind="error"))
    assert not is_entity(rec("dublincore", {}, type=()))
    assert not is_entity(
        rec("data-block", {}, type=("__NEXT_DATA__",), element="/html/body/script")
    )
    assert is_entity(rec("data-block", {}, element="/html/body/script#$.props.product"))
    assert not is_entity(rec("json", {}, type=("x",), element="$"))
    assert is_entity(rec("json", {}, element="$.products[0]"))


def test_sqlite_store_round_trip(tmp_path):
    store = SqliteEntityStore(tmp_path / "e.sqlite")
    state = new_state("k")
    add_record(state, rec("json-ld", {"name": "A"}), page_url="u", retrieved_at="t", ranks=RANKS)
    store.save({"k": state}, [("k", "u", "json-ld", "/x", "t")])
    assert store.load(["k", "missing"]) == {"k": state}
    assert len(store) == 1
    assert [s["key"] for s in store.states()] == ["k"]
    assert store.sources("k") == [
        {"url": "u", "format": "json-ld", "source_element": "/x", "retrieved_at": "t"}
    ]
    store.close()
    kept = SqliteEntityStore(tmp_path / "e.sqlite", reset=False)
    assert len(kept) == 1
    kept.close()
    assert len(SqliteEntityStore(tmp_path / "e.sqlite")) == 0


def test_a_repaired_record_ranks_after_every_layer_read_as_written():
    from structcrawl.entities import add_record, entity_view, new_state, precedence_ranks

    ranks = precedence_ranks(["json-ld", "microdata", "opengraph"])
    state = new_state("k")
    repaired = {
        "format": "json-ld",
        "type": ["Product"],
        "repairs": ["remove-trailing-commas"],
        "properties": {"name": "Fixed"},
        "provenance": {"fields": {}},
    }
    plain = {
        "format": "opengraph",
        "type": ["Product"],
        "properties": {"name": "Plain"},
        "provenance": {"fields": {}},
    }
    add_record(state, repaired, page_url="u", retrieved_at=None, ranks=ranks)
    add_record(state, plain, page_url="u", retrieved_at=None, ranks=ranks)
    view = entity_view(state)
    assert view["properties"]["name"] == "Plain"
    assert [c["field"] for c in view["conflicts"]] == ["name"]


def test_a_language_tagged_literal_agrees_with_the_same_plain_text() -> None:
    """The value model keeps RDFa's language ({"@value", "@language"}); the same text from
    another layer is not a conflict; nor is a reference and the same IRI written as text, or
    one value and a list of just that value."""
    from structcrawl.entities.sameness import cmp_key

    assert cmp_key({"@value": "Atlas", "@language": "en"}) == cmp_key("Atlas")
    assert cmp_key({"@value": "28.00", "@type": "x"}) == cmp_key(28)
    assert cmp_key({"@id": "https://a.example/"}) == cmp_key("https://a.example/")
    assert cmp_key(["https://a.example/x.svg"]) == cmp_key("https://a.example/x.svg")
    assert cmp_key(["a", "b"]) == cmp_key(["b", "a"]) != cmp_key(["a"])


def test_sqlite_store_writes_behind_in_the_order_of_last_change(tmp_path, monkeypatch):
    """A crawl's own store keeps states in memory and writes them in batches; what it lists is
    what write-through would list: every state, in the order of its last change."""
    from structcrawl.entities import store as store_module

    monkeypatch.setattr(store_module, "_BATCH_STATES", 3)
    store = SqliteEntityStore(tmp_path / "e.sqlite")
    for key in ("a", "b", "c", "a"):  # 'a' changes last
        state = store.load([key]).get(key) or new_state(key)
        add_record(
            state, rec("json-ld", {"name": key}), page_url=key, retrieved_at="t", ranks=RANKS
        )
        store.save({key: state}, [(key, key, "json-ld", "/x", "t")])
    other = sqlite3.connect(tmp_path / "e.sqlite")  # a batch of three was written already
    assert other.execute("SELECT key FROM entities ORDER BY rowid").fetchall() == [
        ("a",),
        ("b",),
        ("c",),
    ]
    assert store.load(["a"])["a"]["sightings"] == 2  # the last change, not written yet
    assert [s["key"] for s in store.states()] == ["b", "c", "a"]
    assert [s["url"] for s in store.sources("a")] == ["a", "a"]
    store.close()


def test_a_store_whose_cache_holds_every_state_asks_the_table_nothing(tmp_path, monkeypatch):
    """A crawl's own store that never forgot holds every state in memory: a key it lacks is
    new, found without a query. Once it forgets (past its bounds), keys are looked up on disk."""
    from structcrawl.entities import store as store_module

    monkeypatch.setattr(store_module, "_BATCH_STATES", 1)
    monkeypatch.setattr(store_module, "CACHE_STATES", 1)
    store = SqliteEntityStore(tmp_path / "e.sqlite")
    asked: list[str] = []
    store.db.set_trace_callback(lambda sql: asked.append(sql) if "SELECT" in sql else None)
    assert store.load(["a"]) == {}
    store.save({"a": new_state("a")}, [("a", "u", "json-ld", "/x", "t")])
    assert store.load(["a", "b"]).keys() == {"a"} and asked == []
    store.save({"b": new_state("b")}, [("b", "u", "json-ld", "/x", "t")])  # two: forgotten
    assert store.load(["a", "c"]).keys() == {"a"} and len(asked) == 1
    store.close()


def test_a_kept_store_writes_each_page_at_once(tmp_path):
    """A store kept across the runs of a job (JOBDIR) writes each page's merge in its own
    transaction: a crash after save() loses nothing."""
    kept = SqliteEntityStore(tmp_path / "e.sqlite", reset=False)
    kept.save({"k": new_state("k")}, [("k", "u", "json-ld", "/x", "t")], pages=["u"])
    other = sqlite3.connect(tmp_path / "e.sqlite")
    assert other.execute("SELECT key FROM entities").fetchall() == [("k",)]
    assert kept.has_page("u")
    kept.close()


def test_a_store_too_large_for_memory_lists_the_same(tmp_path, monkeypatch):
    """Beyond CACHE_STATES states, the store forgets them once written and lists them from
    disk, in the same order as one that kept them all."""
    from structcrawl.entities import store as store_module

    def fill(path):
        store = SqliteEntityStore(path)
        for key in ("a", "b", "c", "d", "b", "e", "a"):
            state = store.load([key]).get(key) or new_state(key)
            add_record(
                state, rec("json-ld", {"name": key}), page_url=key, retrieved_at="t", ranks=RANKS
            )
            store.save({key: state}, [(key, key, "json-ld", "/x", "t")])
        return store

    kept = fill(tmp_path / "kept.sqlite")
    monkeypatch.setattr(store_module, "_BATCH_STATES", 2)
    monkeypatch.setattr(store_module, "CACHE_STATES", 2)
    forgetful = fill(tmp_path / "forgetful.sqlite")
    assert not forgetful._complete and kept._complete
    listed = [s["key"] for s in kept.states()]
    assert listed == ["c", "d", "b", "e", "a"]
    assert [s["key"] for s in forgetful.states()] == listed
    assert list(kept.states()) == list(forgetful.states())


def test_the_entity_id_does_not_depend_on_the_order_of_sightings():
    """Two spellings of one @id (the key is the canonical one): the best-ranked layer's,
    then the smallest, in whatever order the pages came."""
    sightings = [
        ("microdata", "https://a.example/p"),
        ("json-ld", "https://a.example/p/"),
        ("json-ld", "https://a.example/p"),
    ]
    chosen = set()
    for order in (sightings, sightings[::-1], sightings[1:] + sightings[:1]):
        state = new_state("id:https://a.example/p")
        for fmt, iri in order:
            add_record(
                state, rec(fmt, {"name": "P"}, id=iri), page_url=iri, retrieved_at="t", ranks=RANKS
            )
        chosen.add(entity_view(state)["id"])
    assert chosen == {"https://a.example/p"}
