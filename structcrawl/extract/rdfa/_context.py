"""Prefix and term mappings: the RDFa 1.1 initial context, ``@prefix`` parsing, CURIE resolution.

A :class:`PrefixMap` is immutable once built and carries its own resolution caches, so elements
that do not declare prefixes share their parent's map (and its warm caches). The initial map is a
module-level singleton: on a page without declarations ``og:title`` is resolved once per process,
not once per element. Nothing cached here depends on the document (no base IRI, no generated
blank nodes), which is what makes that sharing safe.
"""

from __future__ import annotations

import re

from ._model import IRI, XHV_NS, BNode, Resource

__all__ = [
    "INITIAL_PREFIXES",
    "INITIAL_TERMS",
    "TERMS_LOWER",
    "PrefixMap",
    "INITIAL_PREFIX_MAP",
    "parse_prefix_attribute",
    "user_bnode",
    "is_ncname",
    "is_absolute_iri",
    "IRI_SCHEMES",
]

# W3C RDFa 1.1 initial context (http://www.w3.org/2011/rdfa-context/rdfa-1.1), the only initial
# context of the HTML5 host language.
INITIAL_PREFIXES: dict[str, str] = {
    "as": "https://www.w3.org/ns/activitystreams#",
    "cc": "http://creativecommons.org/ns#",
    "csvw": "http://www.w3.org/ns/csvw#",
    "ctag": "http://commontag.org/ns#",
    "dc": "http://purl.org/dc/terms/",
    "dc11": "http://purl.org/dc/elements/1.1/",
    "dcat": "http://www.w3.org/ns/dcat#",
    "dcterms": "http://purl.org/dc/terms/",
    "dqv": "http://www.w3.org/ns/dqv#",
    "duv": "https://www.w3.org/ns/duv#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "gr": "http://purl.org/goodrelations/v1#",
    "grddl": "http://www.w3.org/2003/g/data-view#",
    "ical": "http://www.w3.org/2002/12/cal/icaltzd#",
    "jsonld": "http://www.w3.org/ns/json-ld#",
    "ldp": "http://www.w3.org/ns/ldp#",
    "ma": "http://www.w3.org/ns/ma-ont#",
    "oa": "http://www.w3.org/ns/oa#",
    "odrl": "http://www.w3.org/ns/odrl/2/",
    "og": "http://ogp.me/ns#",
    "org": "http://www.w3.org/ns/org#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "prov": "http://www.w3.org/ns/prov#",
    "qb": "http://purl.org/linked-data/cube#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfa": "http://www.w3.org/ns/rdfa#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "rev": "http://purl.org/stuff/rev#",
    "rif": "http://www.w3.org/2007/rif#",
    "rr": "http://www.w3.org/ns/r2rml#",
    "schema": "http://schema.org/",
    "sd": "http://www.w3.org/ns/sparql-service-description#",
    "sioc": "http://rdfs.org/sioc/ns#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "skosxl": "http://www.w3.org/2008/05/skos-xl#",
    "sosa": "http://www.w3.org/ns/sosa/",
    "ssn": "http://www.w3.org/ns/ssn/",
    "time": "http://www.w3.org/2006/time#",
    "v": "http://rdf.data-vocabulary.org/#",
    "vcard": "http://www.w3.org/2006/vcard/ns#",
    "void": "http://rdfs.org/ns/void#",
    "wdr": "http://www.w3.org/2007/05/powder#",
    "wdrs": "http://www.w3.org/2007/05/powder-s#",
    "xhv": "http://www.w3.org/1999/xhtml/vocab#",
    "xml": "http://www.w3.org/XML/1998/namespace",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}

INITIAL_TERMS: dict[str, str] = {
    "describedby": "http://www.w3.org/2007/05/powder-s#describedby",
    "license": XHV_NS + "license",
    "role": XHV_NS + "role",
}
#: The initial-context terms by lower-case name (terms match case-insensitively).
TERMS_LOWER: dict[str, str] = {k.lower(): v for k, v in INITIAL_TERMS.items()}

# NCName approximations (Unicode-aware through \w); a term may also contain "/".
_NCNAME = re.compile(r"[^\W\d][\w.\-\u00b7]*\Z")
_TERM = re.compile(r"[^\W\d][\w.\-\u00b7/]*\Z")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
#: Schemes whose IRIs are written without ``//`` (``urn:isbn:...``, ``mailto:...``): a token
#: ``name:rest`` whose prefix is not declared is an absolute IRI only with one of these (or a
#: ``//`` after the colon); otherwise it is a CURIE with an undefined prefix, and ignored
#: (``undefinedpfx:colour`` is a mistake, not the IRI of a scheme nobody registered).
IRI_SCHEMES = frozenset(
    "urn mailto tel tag data file ftp ni did geo info sip sips xmpp news ldap irc "
    "ws wss about blob magnet sms fax cid mid dns doi isbn issn uuid".split()
)
_CACHE_LIMIT = 20_000
_EXTENSION_LIMIT = 256


def user_bnode(label: str) -> BNode:
    """The blank node an author wrote as ``_:label`` (``_:`` alone is one node per document).

    Author labels get a ``u`` prefix and generated nodes a ``g`` prefix, so they never collide.
    """
    return BNode("u" + label)


class PrefixMap:
    """An immutable prefix → IRI mapping with caches for CURIE and term resolution."""

    __slots__ = ("mapping", "_curies", "_tokens", "_extensions")

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping
        self._curies: dict[str, Resource | None] = {}
        self._tokens: dict[tuple[str, str | None], tuple[Resource, ...]] = {}
        self._extensions: dict[tuple[tuple[str, str], ...], PrefixMap] = {}

    def extend(self, declared: dict[str, str]) -> PrefixMap:
        """This map with ``declared`` added (itself, if nothing changes).

        Extensions are memoized, so pages that repeat the same declarations (the usual
        ``<html prefix="og: http://ogp.me/ns#">``) share one map and its warm caches.
        """
        key = tuple(sorted(declared.items()))
        extended = self._extensions.get(key)
        if extended is not None:
            return extended
        if all(self.mapping.get(k) == v for k, v in declared.items()):
            extended = self
        else:
            merged = dict(self.mapping)
            merged.update(declared)
            extended = PrefixMap(merged)
        if len(self._extensions) > _EXTENSION_LIMIT:
            self._extensions.clear()
        self._extensions[key] = extended
        return extended

    def curie(self, value: str) -> Resource | None:
        """Resolve ``prefix:reference`` (or ``_:label``); ``None`` when it is not a usable CURIE."""
        cache = self._curies
        try:
            return cache[value]
        except KeyError:
            pass
        result = self._curie(value)
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        cache[value] = result
        return result

    def _curie(self, value: str) -> Resource | None:
        prefix, sep, reference = value.partition(":")
        if not sep:
            return None
        if prefix == "_":
            return user_bnode(reference)
        if reference.startswith("//"):
            # "http://..." is an IRI even if someone declared a prefix called "http".
            return None
        if prefix == "":
            return IRI(XHV_NS + reference)
        base = self.mapping.get(prefix.lower())
        if base is None:
            return None
        return IRI(base + reference)

    def about(self, value: str) -> tuple[bool, Resource | None]:
        """Classify a SafeCURIEorCURIEorIRI value.

        Returns ``(True, resource)`` when the value is a (safe) CURIE, the resource being ``None``
        for a safe CURIE that does not resolve (the attribute is then ignored), and
        ``(False, None)`` when the value is an IRI the caller must resolve against the base.
        """
        if value.startswith("[") and value.endswith("]"):
            return True, self.curie(value[1:-1].strip())
        if ":" in value:
            resolved = self.curie(value)
            if resolved is not None:
                return True, resolved
        return False, None

    def tokens(self, value: str, vocab: str | None) -> tuple[Resource, ...]:
        """Resolve a space-separated TERMorCURIEorAbsIRI list; unresolvable tokens are dropped."""
        key = (value, vocab)
        cache = self._tokens
        try:
            return cache[key]
        except KeyError:
            pass
        out: list[Resource] = []
        for token in value.split():
            resolved = self._token(token, vocab)
            if resolved is not None and resolved not in out:
                out.append(resolved)
        result = tuple(out)
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        cache[key] = result
        return result

    def _token(self, token: str, vocab: str | None) -> Resource | None:
        if ":" not in token:
            if not _TERM.match(token):
                return None
            if vocab:
                return IRI(vocab + token)
            iri = INITIAL_TERMS.get(token) or TERMS_LOWER.get(token.lower())
            return IRI(iri) if iri is not None else None
        resolved = self.curie(token)
        if resolved is not None:
            return resolved
        if _SCHEME.match(token) and is_absolute_iri(token):
            return IRI(token)
        return None


def is_absolute_iri(token: str) -> bool:
    """Whether ``token`` (``scheme:rest``, its prefix undeclared) is read as an absolute IRI.

    >>> is_absolute_iri("http://x.example/a"), is_absolute_iri("urn:isbn:0451450523")
    (True, True)
    >>> is_absolute_iri("undefinedpfx:colour")
    False
    """
    scheme, _, rest = token.partition(":")
    return rest.startswith("//") or scheme.lower() in IRI_SCHEMES


INITIAL_PREFIX_MAP = PrefixMap(dict(INITIAL_PREFIXES))


def parse_prefix_attribute(value: str) -> dict[str, str]:
    """Parse ``@prefix``: whitespace-separated ``name: IRI`` pairs; malformed pairs are skipped."""
    out: dict[str, str] = {}
    tokens = value.split()
    i = 0
    n = len(tokens)
    while i < n:
        token = tokens[i]
        if token.endswith(":") and i + 1 < n and not tokens[i + 1].endswith(":"):
            name = token[:-1].lower()
            iri = tokens[i + 1]
            i += 2
            if name and name != "_" and _NCNAME.match(name) and _SCHEME.match(iri):
                out[name] = iri
        else:
            i += 1
    return out


def is_ncname(value: str) -> bool:
    """Whether ``value`` looks like an XML NCName (used for ``xmlns:`` prefixes)."""
    return bool(_NCNAME.match(value))
