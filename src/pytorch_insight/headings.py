"""The names authors give the sections of an issue or a PR ("Root cause", "Workaround", "Expected
behavior" ...) and the role each names: read by the body parser, the role corpus and the analysis."""

from __future__ import annotations

# Heading name (lower case, emoji and trailing colon removed) -> role. Only names whose section is
# one role: "Output" or "Result" may hold a traceback, a benchmark or an outcome, so they end a
# section without labelling it.
ROLE_HEADINGS: dict[str, tuple[str, ...]] = {
    "cause": (
        "root cause",
        "root causes",
        "root-cause",
        "root cause analysis",
        "cause",
        "causes",
        "the cause",
        "underlying cause",
        "why",
        "reason",
        "rca",
    ),
    "problem": (
        "problem",
        "the problem",
        "problem statement",
        "issue",
        "the issue",
        "bug",
        "symptom",
        "symptoms",
        "describe the bug",
        "bug description",
        "issue description",
    ),
    "fix": (
        "fix",
        "the fix",
        "fixes",
        "solution",
        "proposed fix",
        "proposed solution",
        "approach",
        "changes",
        "key changes",
        "what changed",
        "implementation",
        "this pr",
        "what this pr does",
        "summary of changes",
    ),
    "workaround": ("workaround", "workarounds", "work around", "work-around", "mitigation", "temporary workaround"),
    "impact": ("impact", "user impact", "observable effect", "who is affected", "affected users", "blast radius"),
    "repro": (
        "to reproduce",
        "repro",
        "reproducer",
        "minimal repro",
        "minified repro",
        "minimal reproducer",
        "reproduction",
        "steps to reproduce",
        "reproduction script",
        "example to reproduce",
        "how to reproduce",
        "code example",
    ),
    "expected": ("expected behavior", "expected behaviour", "expected result", "expected"),
    "actual": ("actual behavior", "actual behaviour", "actual result", "observed behavior", "error logs"),
    "test_plan": ("test plan", "testing", "tests", "verification", "validation", "unit tests"),
    "context": (
        "motivation",
        "context",
        "background",
        "pitch",
        "the feature, motivation and pitch",
        "motivation and context",
        "additional context",
    ),
    "versions": ("versions", "environment", "system info", "describe your environment"),
    "summary": ("summary", "description", "overview", "tl;dr", "tldr"),
}
ROLE_OF = {name: role for role, names in ROLE_HEADINGS.items() for name in names}
