from __future__ import annotations

from django import forms

from .models import GatePolicy


class GatePolicyForm(forms.ModelForm):
    class Meta:
        model = GatePolicy
        fields = ["max_new_errors", "max_new_warnings", "min_parity_pass_rate", "no_parity_regression",
                  "count_accepted", "count_false_positive", "count_fixed"]
        labels = {"min_parity_pass_rate": "Minimum parity pass rate (0–1)"}
