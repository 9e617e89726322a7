# cython: language_level=3
"""The element index's one pass (:func:`structcrawl.core._index._scan`) compiled: the same
pass over libxml2's nodes instead of lxml's iterator (an optional speed-up, built where Cython
and a C compiler are at hand; :class:`structcrawl.core._index.ElementIndex` falls back to the
Python pass).

It meets the elements ``root.iter(etree.Element)`` meets, in the same order, names each
element's tag and attributes as lxml does (``{namespace}name`` where one has a namespace), and
makes a proxy (lxml's public C API: ``elementFactory``) only of the elements it keeps.
``tests/test_compiled.py`` holds the two passes equal on every page at hand.
"""

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode, xmlNs
cimport lxml.includes.etreepublic as cetree

cetree.import_lxml__etree()


cdef inline str _name(const unsigned char* name, xmlNs* ns):
    """A tag or attribute name as lxml says it."""
    local = (<const char*>name).decode("utf-8")
    if ns is NULL or ns.href is NULL:
        return local
    return "{" + (<const char*>ns.href).decode("utf-8") + "}" + local


cdef inline xmlNode* _next_element(xmlNode* c, xmlNode* top) noexcept:
    """The element after ``c`` in document order under ``top`` (NULL after the last)."""
    cdef xmlNode* down = c.children
    while down is not NULL:  # its first element child
        if down.type == tree.XML_ELEMENT_NODE:
            return down
        down = down.next
    while c is not top:
        after = c.next
        while after is not NULL:
            if after.type == tree.XML_ELEMENT_NODE:
                return after
            after = after.next
        c = c.parent
    return NULL


cdef str _value(xmlAttr* a, object el, str key):
    """An attribute's value: its one text node (an HTML attribute's), else as lxml reads it."""
    cdef xmlNode* t = a.children
    if t is NULL:
        return ""
    if t.next is NULL and t.type == tree.XML_TEXT_NODE and t.content is not NULL:
        return (<char*>t.content).decode("utf-8")
    return el.get(key) or ""


def scan(
    cetree._Element root,
    tuple attributes,
    frozenset tags,
    frozenset blocks_named,
    frozenset links_named,
):
    """``(by_attribute, named, blocks, links, data, size, classes)`` of ``root``'s elements:
    what the Python pass finds (see :func:`structcrawl.core._index._scan`)."""
    cdef dict by_attribute = {name: [] for name in attributes}
    cdef list named = [], blocks = [], links = [], data = [], classes = []
    cdef cetree._Document doc = root._doc
    cdef xmlNode* top = root._c_node
    cdef xmlNode* c = top
    cdef xmlAttr* a
    cdef Py_ssize_t size = 0
    cdef list found
    if c.type != tree.XML_ELEMENT_NODE:
        c = _next_element(c, top)
    while c is not NULL:
        size += 1
        el = None
        tag = _name(c.name, c.ns)
        if tag in tags:
            el = cetree.elementFactory(doc, c)
            if tag in blocks_named:
                blocks.append(el)
            elif tag in links_named:
                links.append(el)
            else:
                named.append(el)
        a = c.properties
        while a is not NULL:
            key = _name(a.name, a.ns)
            found = by_attribute.get(key)
            if found is not None or key.startswith("data-") or key.startswith("{"):
                if el is None:
                    el = cetree.elementFactory(doc, c)
                if found is not None:
                    found.append(el)
                    if key == "class":
                        classes.append(_value(a, el, key))
                else:
                    data.append((el, key))
            a = a.next
        c = _next_element(c, top)
    return by_attribute, named, blocks, links, data, size, classes
