"""resolve_iri's shortcut for absolute http(s) references agrees with urljoin."""

from __future__ import annotations

from urllib.parse import urljoin

from hypothesis import given, settings
from hypothesis import strategies as st

from structcrawl.extract.rdfa._iri import resolve_iri

BASES = ["http://b.example/x/y", "https://b.example/", "file:///x/y", "http://b.example"]


@settings(max_examples=500, deadline=None)
@given(
    base=st.sampled_from(BASES),
    scheme=st.sampled_from(["http://", "https://"]),
    rest=st.text(alphabet="ab:/?.&=%;@[]-_\u00fc \t\n", min_size=1, max_size=20),
)
def test_absolute_references_resolve_as_urljoin_does(base, scheme, rest):
    ref = scheme + rest
    if ref.endswith("?"):
        return  # urljoin drops an empty query; resolve_iri keeps it (its own test below)
    try:
        expected = urljoin(base, ref)
    except ValueError:
        expected = ref  # unparseable: kept as written
    assert resolve_iri(base, ref) == expected


def test_empty_queries_and_fragments_survive():
    assert resolve_iri("http://b.example/", "https://a.example/v?") == "https://a.example/v?"
    assert resolve_iri("http://b.example/", "https://a.example/v#") == "https://a.example/v#"
    assert resolve_iri("http://b.example/a/", "../x#y") == "http://b.example/x#y"
