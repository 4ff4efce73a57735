"""{% load paths %}{{ path|pathbreak }}: a file path that wraps after / (and _), never inside a name."""
from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_AFTER = re.compile(r"([/_])")


@register.filter
def pathbreak(value) -> SafeString:
    # <wbr> is a break opportunity only: copying the path still gives the path.
    return mark_safe(_AFTER.sub(r"\1<wbr>", str(escape(value or ""))))


@register.filter
def namebreak(value) -> SafeString:
    """A dotted name (package.module.Class) that wraps after its dots."""
    return mark_safe(str(escape(value or "")).replace(".", ".<wbr>"))
