"""{% load assets %}{% plotly_js %}: the URL of plotly.min.js under its versioned folder."""
from __future__ import annotations

from django import template
from django.templatetags.static import static

from porting_site.lib.plotly_static import SCRIPT

register = template.Library()


@register.simple_tag
def plotly_js() -> str:
    return static(SCRIPT)
