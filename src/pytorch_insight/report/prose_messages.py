"""The report's own prose in Chinese and English: the sentences of its entries (report/narrative.py),
its overview (report/overview.py) and its follow-up of the previous report (report/followup.py).
Part of the message catalogue (report/i18n.py)."""

from __future__ import annotations

PROSE: dict[str, dict[str, str]] = {
    # The report's own sentences (report/narrative.py); quotes keep the source's words.
    "quoted": {"zh": "“{text}”", "en": "“{text}”"},
    "p_label": {"zh": "分诊标签“{label}”", "en": "triaged as “{label}”"},
    "p_model": {
        "zh": "按分诊模型判断为{name}（概率 {p}），依据：“{quote}”",
        "en": "the learned triage model reads it as {name} (p={p}) from “{quote}”",
    },
    "p_model_clause": {
        "zh": "按分诊模型判断为{name}（概率 {p}），依据：“{quote}”",
        "en": "that the learned triage model reads as {name} (p={p}), from “{quote}”",
    },
    "c_problem": {"zh": "报告的问题：{problem}", "en": "Reported problem: {problem}"},
    # what a quote or a name is credited to when another item of the story states it
    "p_in": {"zh": "（见 {ref}）", "en": " (in {ref})"},
    "p_in_aside": {"zh": "，见 {ref}", "en": " in {ref}"},  # inside an aside already in brackets
    "c_fix": {"zh": "修复 {refs}，所修问题：{problem}", "en": "Fixes {refs}, a problem stated as {problem}"},
    "c_fix_partial": {
        "zh": "部分修复 {refs}，所涉问题：{problem}",
        "en": "Partly fixes {refs}, a problem stated as {problem}",
    },
    "c_fix_untargeted": {"zh": "修复改动，所修问题：{problem}", "en": "A fix for a problem stated as {problem}"},
    "c_change_mentions": {"zh": "改动，其描述提到：{problem}", "en": "A change whose description says {problem}"},
    # The same, where a triager's label or the learned model names the problem, not the text.
    "c_fix_judged": {"zh": "修复 {refs}，所修问题：{problem}", "en": "Fixes {refs}, a problem {problem}"},
    "c_fix_partial_judged": {
        "zh": "部分修复 {refs}，所涉问题：{problem}",
        "en": "Partly fixes {refs}, a problem {problem}",
    },
    "c_fix_untargeted_judged": {"zh": "修复改动，所修问题：{problem}", "en": "A fix for a problem {problem}"},
    "c_change_mentions_judged": {"zh": "改动，所涉问题：{problem}", "en": "A change {problem}"},
    "c_tracker_judged": {
        "zh": "跟踪 {n} 个问题，其中最严重的：{problem}",
        "en": "Tracks {n} issues, the worst {problem}",
    },
    "c_tracker": {
        "zh": "跟踪 {n} 个问题，其中最严重的：{problem}",
        "en": "Tracks {n} issues, the worst stated as {problem}",
    },
    "c_rfc": {"zh": "设计提案，征求意见", "en": "A design proposal open for comments"},
    "c_rfc_closed": {"zh": "设计提案（已关闭）", "en": "A design proposal, now closed"},
    # The rules' reading, said as theirs: no source calls a change "design-level".
    "c_design": {
        "zh": "规则判为设计或 API 层面的改动：{detail}",
        "en": "A change the rules read as one of design or API: {detail}",
    },
    # The thread is what it is (a PR, an issue); the figure is what its description measures.
    "c_gain": {"zh": "{kind}，描述中的实测数据：{detail}", "en": "{kind} whose description measures {detail}"},
    # No problem, design or gain was read from it: what it is, in its own title's words (saying its
    # sources "state no problem" would be false whenever they state one the rules did not read).
    "c_other": {"zh": "{kind}：{title}", "en": "{kind}: {title}"},
    "c_fix_state": {"zh": "修复状态：{fix}", "en": "Fix state: {fix}"},
    "ctx_confirmed": {"zh": "，已被分诊标为高优先级", "en": ", triaged high priority"},
    "ctx_label": {"zh": "，分诊标签“{label}”", "en": ", triage label “{label}”"},
    "ctx_measured": {"zh": "，实测 {detail}", "en": ", measured {detail}"},
    "ctx_mentions": {"zh": "，提及{names}", "en": ", mentioning {names}"},
    "state_none": {"zh": "未见修复 PR", "en": "no fix PR seen"},
    "state_open": {"zh": "修复进行中", "en": "fix open"},
    "state_landed": {"zh": "修复已合入", "en": "fix landed"},
    "state_merged": {"zh": "已合入", "en": "merged"},
    "state_reverted": {"zh": "已回退", "en": "reverted"},
    "state_closed": {"zh": "已关闭，合入未确认", "en": "closed, landing unconfirmed"},
    "state_unconfirmed": {
        "zh": "仍开放，修复 PR 已关闭但未确认合入",
        "en": "still open; its fix PR was closed without a confirmed landing",
    },
    "state_referenced": {"zh": "有引用它的 PR", "en": "PRs reference it"},
    "state_tracking": {"zh": "跟踪中的问题尚未全部解决", "en": "tracked problems not all resolved"},
    # What the analysis did not recognise, never a claim that no source says it: a thread may state
    # it in words no rule or model reads as such (fact-checkers judged "not stated" false there).
    "not_stated": {
        "zh": "未提取：没有识别出说明它的句子，请阅读原帖",
        "en": "not extracted: no sentence was recognised as stating it; read the thread",
    },
    # An item the data holds by its title alone (an import that lists a thread without its text): the
    # field is empty because there is nothing to read, which the reader should know.
    "not_described": {
        "zh": "未提取：收集到的数据中没有它的描述或评论，请阅读原帖",
        "en": "not extracted: the collected data holds no description or comment of it; read the thread",
    },
    # ... or only comments from after the report's moment, which the report does not read as its text.
    "not_described_later": {
        "zh": "未提取：收集到的数据中没有它的描述，评论都在本报告时点之后，请阅读原帖",
        "en": (
            "not extracted: the collected data holds no description of it, and its comments all came after this "
            "report's period; read the thread"
        ),
    },
    "workaround_labelled": {"zh": "；但它带有分诊标签“{label}”", "en": "; it carries the triage label “{label}”"},
    "source_quote": {"zh": "原文", "en": "quoted"},
    "source_quote_from": {"zh": "原文，引自 {ref}", "en": "quoted from {ref}"},
    "conclusion": {"zh": "结论", "en": "In one line"},
    # The overview's paragraphs (report/overview.py): a story per clause, then what to act on first.
    # The focus stories of the area, not all its items (the area table counts those).
    "ov_intro": {"zh": "{area}：本周有 {n} 项重点动态{high}。", "en": "{area}: {n} stories in focus this week{high}. "},
    "ov_intro_one": {"zh": "{area}：本周有 1 项重点动态。", "en": "{area}: one story in focus this week. "},
    "ov_intro_high": {"zh": "，其中 {k} 项为高优先级", "en": ", {k} of them high priority"},
    "ov_issue_fixed": {
        "zh": "{ref} 报告了{title}{whom}，修复 {fix} 已合入",
        "en": "{ref} reported {title}{whom}, and its fix {fix} has landed",
    },
    "ov_issue_fixed_many": {
        "zh": "{ref} 报告了{title}{whom}，修复 {fix} 已合入",
        "en": "{ref} reported {title}{whom}, and its fixes {fix} have landed",
    },
    "ov_issue_fixing": {
        "zh": "{ref} 报告了{title}{whom}，修复 {fix} 仍在审阅、尚未合入",
        "en": "{ref} reported {title}{whom}; its fix {fix} is still under review",
    },
    "ov_issue_fixing_many": {
        "zh": "{ref} 报告了{title}{whom}，修复 {fix} 仍在审阅、尚未合入",
        "en": "{ref} reported {title}{whom}; its fixes {fix} are still under review",
    },
    "ov_issue_fix_closed": {
        "zh": "{ref} 报告了{title}{whom}，其修复 {fix} 已在 GitHub 上关闭，数据中看不出是否合入",
        "en": "{ref} reported {title}{whom}; its fix {fix} is closed on GitHub, landing not shown in the data",
    },
    "ov_issue_fix_closed_many": {
        "zh": "{ref} 报告了{title}{whom}，其修复 {fix} 已在 GitHub 上关闭，数据中看不出是否合入",
        "en": "{ref} reported {title}{whom}; its fixes {fix} are closed on GitHub, landing not shown in the data",
    },
    "ov_issue_open": {
        "zh": "{ref} 报告了{title}{whom}，收集到的数据中未见修复 PR",
        "en": "{ref} reported {title}{whom}; the collected data shows no fix PR for it",
    },
    "ov_issue_pr_in_thread": {
        "zh": "{ref} 报告了{title}{whom}，窗口内没有与之关联的修复，但讨论中提到了 PR",
        "en": "{ref} reported {title}{whom}; no fix in the window is linked to it, but its thread mentions a PR",
    },
    "ov_issue_linked_pr": {
        "zh": "{ref} 报告了{title}{whom}，它与 {fix} 以链接相连",
        "en": "{ref} reported {title}{whom}; it is linked with {fix}",
    },
    "ov_issue_similar_pr": {
        "zh": "{ref} 报告了{title}{whom}，没有 PR 指明修复它，但 {fix} 的标题与它相近",
        "en": "{ref} reported {title}{whom}; no PR names it as fixed, but {fix} has a similar title",
    },
    "ov_issue_referenced": {
        "zh": "{ref} 报告了{title}{whom}，已有 PR 引用它（{fix}）",
        "en": "{ref} reported {title}{whom}; PRs reference it ({fix})",
    },
    "ov_issue_closed_fixed_said": {
        "zh": "{ref} 报告了{title}{whom}，已关闭，讨论中有人说它已修复",
        "en": "{ref} reported {title}{whom} and was closed; a comment says it is fixed",
    },
    "ov_issue_closed_fixed_said_by": {
        "zh": "{ref} 报告了{title}{whom}，已关闭，{by} 说它已修复",
        "en": "{ref} reported {title}{whom} and was closed; {by} says it is fixed",
    },
    "ov_issue_closed": {
        "zh": "{ref} 报告了{title}{whom}，已关闭，但数据中看不出修复是否合入",
        "en": "{ref} reported {title}{whom} and was closed, though the data does not show a fix landing",
    },
    "ov_in_part": {"zh": "{ref}（部分）", "en": "{ref} (in part)"},
    "ov_fix_merged": {
        "zh": "{ref} 修复了 {target} 的问题（{title}）{whom_clause}，已合入",
        "en": "{ref} {title}{whom} fixed {target} and has landed",
    },
    "ov_fix_open": {
        "zh": "{ref} 提交了 {target} 的修复（{title}）{whom_clause}，尚待审阅合入",
        "en": "{ref} {title}{whom} proposes a fix for {target}, not yet landed",
    },
    "ov_change_merged": {"zh": "{ref} {title}{whom} 已合入", "en": "{ref} {title}{whom} has landed"},
    "ov_change_open": {"zh": "{ref} {title}{whom} 仍在审阅中", "en": "{ref} {title}{whom} is still under review"},
    "ov_fix_closed": {
        "zh": "{ref} 是 {target} 的修复（{title}）{whom_clause}，已在 GitHub 上关闭，未确认合入",
        "en": "{ref} {title}{whom} fixes {target} and is closed on GitHub, landing unconfirmed",
    },
    "ov_fix_closed_landed_said": {
        "zh": "{ref} 是 {target} 的修复（{title}）{whom_clause}，已在 GitHub 上关闭，讨论中有人说它已合入",
        "en": "{ref} {title}{whom} fixes {target} and is closed on GitHub; a comment says it landed",
    },
    "ov_fix_closed_relanded": {
        "zh": "{ref} 是 {target} 的修复（{title}）{whom_clause}，已在 GitHub 上关闭，{reland} 重新合入了它",
        "en": "{ref} {title}{whom} fixes {target} and is closed on GitHub; {reland} relands it",
    },
    "ov_change_closed_relanded": {
        "zh": "{ref} {title}{whom} 已在 GitHub 上关闭，{reland} 重新合入了它",
        "en": "{ref} {title}{whom} was closed on GitHub, and {reland} relands it",
    },
    "ov_fix_closed_picked": {
        "zh": "{ref} 是 {target} 的修复（{title}）{whom_clause}，已在 GitHub 上关闭，它的 cherry-pick {pick} 已合并",
        "en": "{ref} {title}{whom} fixes {target} and is closed on GitHub; its cherry-pick {pick} is merged",
    },
    "ov_change_closed_picked": {
        "zh": "{ref} {title}{whom} 已在 GitHub 上关闭，它的 cherry-pick {pick} 已合并",
        "en": "{ref} {title}{whom} was closed on GitHub, and its cherry-pick {pick} is merged",
    },
    "ov_change_closed_landed_said": {
        "zh": "{ref} {title}{whom} 已在 GitHub 上关闭，讨论中有人说它已合入",
        "en": "{ref} {title}{whom} was closed on GitHub, and a comment says it landed",
    },
    "ov_fix_closed_merge_asked": {
        "zh": "{ref} 是 {target} 的修复（{title}）{whom_clause}，已在 GitHub 上关闭，"
        "讨论中有人请求合入，但数据未显示是否已合入",
        "en": "{ref} {title}{whom} fixes {target} and is closed on GitHub; a comment asked for a merge, but the "
        "data does not show it landing",
    },
    "ov_change_closed_merge_asked": {
        "zh": "{ref} {title}{whom} 已在 GitHub 上关闭，讨论中有人请求合入，但数据未显示是否已合入",
        "en": "{ref} {title}{whom} was closed on GitHub; a comment asked for a merge, but the data does not show "
        "it landing",
    },
    "ov_change_closed": {
        "zh": "{ref} {title}{whom} 已关闭，未确认合入",
        "en": "{ref} {title}{whom} was closed without a confirmed merge",
    },
    "ov_reverted": {"zh": "{ref} {title}{whom} 已被回退", "en": "{ref} {title}{whom} was backed out"},
    "ov_rfc": {
        "zh": "{ref} 提出了设计提案{title}{whom}，正在征求意见",
        "en": "{ref} proposes {title}{whom} and asks for comments",
    },
    "ov_tracker": {
        "zh": "{ref} 汇总跟踪 {n} 个问题（{title}）{whom_clause}",
        "en": "{ref} tracks {n} issues ({title}){whom_clause}",
    },
    "ov_mentions": {"zh": "（提及 {names}）", "en": " (mentioning {names})"},
    "ov_mentions_clause": {"zh": "，提及 {names}", "en": ", mentioning {names}"},
    "ov_more": {"zh": "另有 {n} 项：{refs}", "en": "Also {n} more: {refs}"},
    "ov_act_now": {
        "zh": "最需要立即处理的是 {ref}：{because}，建议{todo}",
        "en": "Act now on {ref}: {because}; {todo}",
    },
    "ov_act_week": {"zh": "本周值得跟进的是 {ref}：{because}，建议{todo}", "en": "This week, {ref}: {because}; {todo}"},
    # The follow-up of the previous report (report/followup.py).
    "fu_title": {"zh": "上周跟进", "en": "Since last week"},
    "fu_stored": {
        "zh": "跟进 {since} – {until} 报告（生成于 {generated}）的重点关注条目：",
        "en": "The focus items of the report for {since} – {until} (generated {generated}):",
    },
    "fu_computed": {
        "zh": "{since} – {until} 没有记录的报告；以下重点关注条目由库中该窗口的条目重建：",
        "en": "No report was recorded for {since} – {until}; its focus items, rebuilt from the stored items:",
    },
    "fu_none": {
        "zh": "没有更早的报告可跟进：库中没有 {since} – {until} 的报告或条目。",
        "en": "No earlier report to follow up: the store holds no report or items for {since} – {until}.",
    },
    "fu_fixed": {"zh": "已修复：{refs} 已合入", "en": "fixed since: {refs} merged"},
    "fu_merged": {"zh": "已合入", "en": "merged since"},
    "fu_closed": {
        "zh": "已关闭，收集到的数据未确认有已合入的修复",
        "en": "closed since; the collected data shows no landed fix",
    },
    "fu_reopened": {"zh": "上周已解决，现在重新打开", "en": "resolved last week, open again now"},
    "fu_regressed": {"zh": "修复已被回退：{refs}", "en": "regressed: the fix was reverted ({refs})"},
    "fu_open": {
        "zh": "仍未解决，收集到的数据中没有修复 PR",
        "en": "still open; no fix PR in the collected data",
    },
    "fu_open_fixing": {"zh": "仍未解决；修复 PR：{refs}", "en": "still open; fix PRs: {refs}"},
    "fu_new_fix": {"zh": "新出现的修复 PR：{refs}", "en": "new fix PR since: {refs}"},
    "fu_unchanged_done": {"zh": "上周已修复或合入，无变化", "en": "already fixed or merged last week; no change"},
    "fu_unchanged_closed": {
        "zh": "上周已关闭（合入未确认），无变化",
        "en": "already closed last week (landing unconfirmed); no change",
    },
    "fu_missing": {
        "zh": "库中已没有该条目，无法判断现状",
        "en": "no longer in the store: where it stands cannot be told",
    },
    "fu_related": {"zh": "本周提到它的：{refs}", "en": "mentioned since by {refs}"},
    "fu_related_claim": {"zh": "{ref} 提到它", "en": "{ref} speaks of it"},
    "fu_dropped": {"zh": "优先级下降：{then} → {now}", "en": "priority dropped: {then} → {now}"},
    "fu_next_fixed": {
        "zh": "下一步：确认 {refs} 已进入你使用的版本",
        "en": "next: check that {refs} is in the build you use",
    },
    "fu_next_merged": {
        "zh": "下一步：在下一个 nightly 中采用，留意回归",
        "en": "next: pick it up in the next nightly and watch for regressions",
    },
    "fu_next_closed": {
        "zh": "下一步：在 GitHub 上确认它是已合入还是被放弃",
        "en": "next: check on GitHub whether it landed or was dropped",
    },
    "fu_next_reopened": {
        "zh": "下一步：看清重新打开的原因，复查你的场景",
        "en": "next: read why it was reopened and re-check your setup",
    },
    "fu_next_regressed": {
        "zh": "下一步：跟进回退 {refs} 以及重新合入",
        "en": "next: follow the revert {refs} and its reland",
    },
    "fu_next_open": {
        "zh": "下一步：继续关注；若影响你，向负责人反馈",
        "en": "next: keep watching; if it affects you, tell its owners",
    },
    "fu_next_open_fixing": {"zh": "下一步：评审或跟进 {refs}", "en": "next: review or follow {refs}"},
    "fu_next_unchanged": {"zh": "下一步：无需处理", "en": "next: nothing to do"},
    "fu_next_missing": {"zh": "下一步：到 GitHub 上查看", "en": "next: look it up on GitHub"},
    "fu_escalated": {"zh": "优先级上升：{then} → {now}", "en": "escalated: priority {then} → {now}"},
    "fu_then_claim": {"zh": "上周报告中的状态", "en": "as the previous report showed it"},
    "fu_state_claim": {"zh": "条目现在的状态", "en": "the item's state now"},
    "fu_fix_claim": {"zh": "关联改动 {ref}", "en": "linked change {ref}"},
    "fu_escalated_claim": {"zh": "本窗口重新排序后的优先级", "en": "its priority ranked in this window"},
    "fu_areas": {"zh": "各领域条目数及较上周变化", "en": "Items per area and change since last week"},
    "fu_col_now": {"zh": "本期", "en": "This week"},
    "fu_col_then": {"zh": "上周", "en": "Last week"},
    "fu_col_change": {"zh": "变化", "en": "Change"},
    "fu_evidence": {"zh": "依据", "en": "Evidence"},
}
