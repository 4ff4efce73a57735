"""Reports of a run built from the database: SARIF, JUnit XML and report JSON."""
from .builders import run_file_reports, run_junit_xml, run_report_json, run_sarif

__all__ = ["run_file_reports", "run_junit_xml", "run_report_json", "run_sarif"]
