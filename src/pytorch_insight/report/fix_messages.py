"""How the report words a fix's state in Chinese and English (report/fix_words.py): the state the
analysis found, the PRs it names with theirs, and what the threads add. Part of the message catalogue
(report/i18n.py)."""

from __future__ import annotations

FIX_STATE: dict[str, dict[str, str]] = {
    "fix_none": {"zh": "收集到的数据中没有引用任何修复 PR", "en": "no fix PR referenced in the collected data"},
    "fix_open": {"zh": "修复 PR 进行中：{refs}", "en": "fix PR open: {refs}"},
    "fix_open_report_closed": {
        "zh": "修复 PR 进行中：{refs}；该报告本身已在 GitHub 上关闭",
        "en": "fix PR open: {refs}; the report itself is closed on GitHub",
    },
    "fix_landed": {"zh": "修复已合入：{refs}", "en": "fix landed: {refs}"},
    "fix_merged": {"zh": "已合入", "en": "merged"},
    "fix_reverted": {"zh": "已被回退：{refs}", "en": "reverted: {refs}"},
    "fix_closed": {
        "zh": "GitHub 上已关闭，收集到的数据无法确认是否已合入{refs}",
        "en": "closed on GitHub; the collected data does not show whether it landed{refs}",
    },
    "fix_closed_report": {
        "zh": "已在 GitHub 上关闭，收集到的数据中没有引用修复 PR",
        "en": "closed on GitHub; no fix PR referenced in the collected data",
    },
    "fix_closed_referenced": {
        "zh": "已在 GitHub 上关闭；引用它的 PR：{refs}",
        "en": "closed on GitHub; PRs that reference it: {refs}",
    },
    "fix_none_linked": {"zh": "与它以链接相连的 PR：{refs}", "en": "PRs linked with it: {refs}"},
    "fix_closed_linked": {
        "zh": "已在 GitHub 上关闭；与它以链接相连的 PR：{refs}",
        "en": "closed on GitHub; PRs linked with it: {refs}",
    },
    "fix_none_similar": {
        "zh": "收集到的数据中没有 PR 指明修复它；标题与它相近的 PR：{refs}",
        "en": "no PR in the collected data names it as fixed; a PR with a similar title: {refs}",
    },
    "fix_none_named": {
        "zh": "收集到的数据中没有与之关联的修复 PR；讨论中提到了一个 PR（{quote}）",
        "en": "no fix PR linked to it in the collected data; a comment names a PR ({quote})",
    },
    "fix_closed_linked_fixed_said": {
        "zh": "已在 GitHub 上关闭，收集到的数据无法确认关联 PR（{refs}）是否已合入；讨论中有人说它已修复（“{quote}”）",
        "en": "closed on GitHub; the data does not show whether its linked PRs ({refs}) landed, and a comment says "
        "it is fixed (“{quote}”)",
    },
    "fix_closed_fixed_said": {
        "zh": "已在 GitHub 上关闭，收集到的数据中没有修复 PR；讨论中有人说它已修复（“{quote}”）",
        "en": "closed on GitHub; no fix PR in the collected data, and a comment says it is fixed (“{quote}”)",
    },
    "fix_fixed_said_too": {
        "zh": "；讨论中有人说它已修复（“{quote}”）",
        "en": "; a comment says it is fixed (“{quote}”)",
    },
    "fix_closed_referenced_fixed_said": {
        "zh": "已在 GitHub 上关闭；引用它的 PR：{refs}；{by}说它已修复（“{quote}”）",
        "en": "closed on GitHub; PRs that reference it: {refs}; {by} says it is fixed (“{quote}”)",
    },
    "by_a_comment": {"zh": "讨论中有人", "en": "a comment"},
    "fix_closed_named": {
        "zh": "已在 GitHub 上关闭，收集到的数据中没有与之关联的修复 PR；讨论中提到了一个 PR（{quote}）",
        "en": "closed on GitHub; no fix PR linked to it in the collected data; a comment names a PR ({quote})",
    },
    "fix_closed_referenced_named": {
        "zh": "已在 GitHub 上关闭；引用它的 PR：{refs}；讨论中提到了一个 PR（{quote}）",
        "en": "closed on GitHub; PRs that reference it: {refs}; a comment names a PR ({quote})",
    },
    "fix_closed_referenced_named_later": {
        "zh": "已在 GitHub 上关闭；引用它的 PR：{refs}；此后的一条评论提到了一个 PR（{quote}）",
        "en": "closed on GitHub; PRs that reference it: {refs}; a later comment names a PR ({quote})",
    },
    "fix_none_named_later": {
        "zh": "截至本期结束，没有与之关联的修复 PR；此后的一条评论提到了一个 PR（{quote}）",
        "en": "no fix PR linked to it by the window's end; a later comment names a PR ({quote})",
    },
    "fix_closed_named_later": {
        "zh": "已在 GitHub 上关闭；截至本期结束，没有与之关联的修复 PR；此后的一条评论提到了一个 PR（{quote}）",
        "en": "closed on GitHub; no fix PR linked to it by the window's end; a later comment names a PR ({quote})",
    },
    "fix_unconfirmed": {
        "zh": "问题仍开放；其修复 PR 已在 GitHub 上关闭，收集到的数据无法确认是否已合入：{refs}",
        "en": "still open; its fix PRs are closed on GitHub and the collected data does not show whether they "
        "landed: {refs}",
    },
    "fix_unconfirmed_fixed_said": {
        "zh": "问题在 GitHub 上仍开放；其修复 PR 已关闭：{refs}；讨论中有人说它已修复（“{quote}”）",
        "en": "still open on GitHub; its fix PRs are closed: {refs}; a comment says it is fixed (“{quote}”)",
    },
    "fix_referenced": {
        "zh": "引用它的 PR：{refs}",
        "en": "PRs that reference it: {refs}",
    },
    "fix_merge_requested": {
        # The data does not show whether the request came before the PR closed: only the request is said.
        "zh": "；{who} 曾请求合入（“{words}”）",
        "en": "; {who} asked for a merge (“{words}”)",
    },
    "fix_closed_revert_requested": {
        "zh": "GitHub 上已关闭；{who} 请合并工具回退它（“{words}”）",
        "en": "closed on GitHub; {who} asked the merge tooling to revert it (“{words}”)",
    },
    "fix_closed_landed_said": {
        "zh": "GitHub 上已关闭，讨论中有人说它已合入（“{quote}”）",
        "en": "closed on GitHub, and a comment says it landed (“{quote}”)",
    },
    "fix_closed_picked": {
        "zh": "GitHub 上已关闭；它的 cherry-pick {refs} 已合并",
        "en": "closed on GitHub; its cherry-pick {refs} is merged",
    },
    "fix_closed_relanded": {
        "zh": "GitHub 上已关闭；{refs} 重新合入了它",
        "en": "closed on GitHub; {refs} relands it",
    },
    "fix_superseded": {
        "zh": "；讨论中有人说它已被取代或放弃（“{quote}”）",
        "en": "; a comment says it was superseded or abandoned (“{quote}”)",
    },
    "fix_superseded_on": {
        "zh": "；{ref} 的讨论中有人说它已被取代或放弃（“{quote}”）",
        "en": "; a comment on {ref} says it was superseded or abandoned (“{quote}”)",
    },
    "fix_pr_mentioned": {
        "zh": "；讨论中有人提到一个 PR（{quote}），但没有给出编号",
        "en": "; a comment speaks of a PR ({quote}) without naming it",
    },
    "fix_open_self": {"zh": "PR 进行中，尚未合入", "en": "PR open, not merged yet"},
    "fix_tracking": {
        "zh": "跟踪 {n} 项：已关闭 {closed} 项，有修复 PR 的 {fixing} 项，仍开放 {open} 项{missing}",
        "en": "tracks {n}: {closed} closed, {fixing} with a fix PR, {open} open{missing}",
    },
    "fix_tracking_missing": {"zh": "（{n} 项不在收集的数据中）", "en": " ({n} not in the collected data)"},
    "fix_ref_state": {"zh": "{ref}（{state}）", "en": "{ref} ({state})"},
    "pr_state_merged": {"zh": "已合入", "en": "merged"},
    "pr_state_open": {"zh": "进行中", "en": "open"},
    "pr_state_closed": {"zh": "已关闭，未确认合入", "en": "closed, landing unconfirmed"},
    "pr_state_uncollected": {"zh": "不在收集的数据中", "en": "not in the collected data"},
    "fix_closed_refs": {"zh": "（关联 PR：{refs}）", "en": " (linked PRs: {refs})"},
    "fix_closed_passed_over": {"zh": "GitHub 上已关闭；关联 PR：{refs}", "en": "closed on GitHub; linked PRs: {refs}"},
}
