"""{% load parity %}{% parity_badge result.status %}: a parity status in a user's words
(analysis.parity.statuses), its meaning on hover; the CSS class keeps the stored word."""
from __future__ import annotations

from django import template
from django.utils.html import format_html

from analysis.parity.statuses import status_label, status_meaning

register = template.Library()


@register.simple_tag
def parity_badge(status: str):
    meaning = status_meaning(status)
    if meaning:
        return format_html('<span class="badge st-{}" title="{}">{}</span>', status, meaning, status_label(status))
    return format_html('<span class="badge st-{}">{}</span>', status, status_label(status))


@register.filter
def parity_meaning(status: str) -> str:
    return status_meaning(status)
