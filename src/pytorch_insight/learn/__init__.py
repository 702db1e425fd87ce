"""Training the severity model from a project's own triage labels (see pipeline/severity.py for
reading it): corpus files, GitHub label harvests, fitting, time-split evaluation, the data card."""
