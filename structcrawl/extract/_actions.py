"""schema.org action constraints written as form controls (schema.org/docs/actions.html, part 4).

A property whose name ends in ``-input`` or ``-output`` (``query-input``, ``name-output``)
says how an action's parameter is filled: a ``PropertyValueSpecification``, or its textual
shorthand ``"required maxlength=100 name=q"``, whose words are those of the HTML form
attributes. Microdata and RDFa write it on the form control itself::

    <input itemprop="query-input" type="text" name="search_term_string" required>

The HTML algorithms read the text of an ``<input>``, which is always empty; what the publisher
wrote is in the control's attributes. :func:`action_constraint` reads them back as the
shorthand (``"required name=search_term_string"``), the form schema.org's JSON-LD examples use,
so the three syntaxes state one value.

>>> from lxml import etree
>>> el = etree.fromstring('<input name="q" required="" maxlength="80" type="text"/>')
>>> action_constraint("query-input", el)
'required maxlength=80 name=q'
>>> action_constraint("query", el) is None, action_constraint("https://schema.org/query-input", el)
(True, 'required maxlength=80 name=q')
"""

from __future__ import annotations

from lxml import etree

__all__ = ["ACTION_SUFFIXES", "action_constraint", "is_action_constraint"]

ACTION_SUFFIXES = ("-input", "-output")
_CONTROLS = frozenset(("input", "select", "textarea"))
#: Boolean attributes, then valued ones, in the order the shorthand writes them (schema.org's
#: PropertyValueSpecification: readonlyValue, multipleValues, valueRequired; valueMinLength,
#: valueMaxLength, minValue, maxValue, stepValue, valuePattern, valueName).
_FLAGS = ("required", "readonly", "multiple")
_VALUED = ("minlength", "maxlength", "min", "max", "step", "pattern", "name")


def is_action_constraint(name: str) -> bool:
    """Whether a property name (short or an IRI) is an action's ``-input``/``-output``."""
    return name.endswith(ACTION_SUFFIXES)


def action_constraint(name: str, el: etree._Element) -> str | None:
    """The textual ``PropertyValueSpecification`` of form control ``el`` carrying property
    ``name``, or ``None`` when ``name`` is no action constraint, ``el`` is not a form control
    (``input``, ``select``, ``textarea``) or states nothing (a word with spaces cannot be
    written in the shorthand and is left out)."""
    if not is_action_constraint(name):
        return None
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in _CONTROLS:
        return None
    words = [flag for flag in _FLAGS if el.get(flag) is not None]
    for attribute in _VALUED:
        value = (el.get(attribute) or "").strip()
        if value and not any(c.isspace() for c in value):
            words.append(f"{attribute}={value}")
    return " ".join(words) or None
