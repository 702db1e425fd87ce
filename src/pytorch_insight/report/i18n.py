"""The message catalogue: every fixed string of the report in Chinese and English."""

from __future__ import annotations

from typing import Any

from pytorch_insight.errors import ConfigError
from pytorch_insight.report.fix_messages import FIX_STATE
from pytorch_insight.report.prose_messages import PROSE

LANGUAGES = ("zh", "en")

MESSAGES: dict[str, dict[str, str]] = {
    "window": {"zh": "时间窗口", "en": "Window"},
    "generated": {"zh": "生成日期", "en": "Generated"},
    "reader_line": {"zh": "读者：{role}", "en": "Reader: {role}"},
    "overview": {"zh": "概览", "en": "Overview"},
    "focus": {"zh": "重点关注", "en": "Focus items"},
    "activity": {"zh": "社区动态", "en": "Community activity"},
    "contributors": {"zh": "关键人物动态", "en": "Key contributors"},
    "teams": {"zh": "团队动态", "en": "Teams"},
    "appendix": {"zh": "附录", "en": "Appendix"},
    "collection_stats": {"zh": "采集统计", "en": "Collection statistics"},
    "source_coverage": {"zh": "数据源覆盖", "en": "Source coverage"},
    "area_coverage": {"zh": "关注领域覆盖", "en": "Focus-area coverage"},
    "charts": {"zh": "图表", "en": "Charts"},
    "chart_areas": {"zh": "各领域条目数（按优先级）", "en": "Items per area by priority"},
    "chart_activity": {"zh": "各类型动态数", "en": "Activity per type"},
    "totals": {
        "zh": "本期共收集 {total} 条动态，其中 GitHub {github} 条、社区渠道 {community} 条；"
        "高优先级 {high} 条，中优先级 {medium} 条。",
        # Counts as figures after a colon: "1 items were" or "1 are" never needs a singular form.
        "en": "Items collected this period: {total} ({github} from GitHub, {community} from community channels); "
        "high priority: {high}, medium: {medium}.",
    },
    "theme_none": {"zh": "本期没有高优先级动态。", "en": "No item reached high priority this period."},
    "watch": {"zh": "值得关注：{item}", "en": "Worth watching: {item}"},
    "summary": {"zh": "概要", "en": "Summary"},
    "details": {"zh": "技术细节", "en": "Technical details"},
    "root_cause": {"zh": "根因", "en": "Root cause"},
    "impact": {"zh": "影响", "en": "Impact"},
    "workaround": {"zh": "临时方案", "en": "Workaround"},
    "fix_state": {"zh": "修复状态", "en": "Fix state"},
    "relations": {"zh": "关联", "en": "Relations"},
    "touched": {"zh": "涉及文件与函数", "en": "Files and functions touched"},
    "downstream": {"zh": "下游代码中的使用", "en": "Uses in your code"},
    "facts": {"zh": "环境与数据", "en": "Environment and figures"},
    "action": {"zh": "建议行动", "en": "Suggested action"},
    "reason": {"zh": "入选原因", "en": "Why it is here"},
    "meta": {"zh": "类型 {kind} · 作者 {author} · {date}", "en": "{kind} · by {author} · {date}"},
    "link": {"zh": "链接", "en": "Link"},
    # A date the import inferred from the item's number or activity (`dating`), never shown as known,
    # and with what it was inferred from, which a reader can check (a report stored before that was
    # kept has only the mark).
    "date_estimated": {"zh": "约 {date}（推定）", "en": "≈{date} (estimated)"},
    "date_estimated_from": {"zh": "约 {date}（推定：{basis}）", "en": "≈{date} (estimated: {basis})"},
    "estimated_after": {"zh": "开于 {ref} 之后", "en": "opened after {ref}"},
    "estimated_before": {"zh": "开于 {ref} 之前", "en": "opened before {ref}"},
    "estimated_activity": {"zh": "据其最早的活动", "en": "from its earliest activity"},
    "no_focus": {"zh": "本期没有进入重点关注的条目。", "en": "Nothing reached the focus list this period."},
    "col_title": {"zh": "标题", "en": "Title"},
    "col_lang": {"zh": "语言", "en": "Language"},
    "col_date": {"zh": "日期", "en": "Date"},
    "col_area": {"zh": "领域", "en": "Area"},
    "col_priority": {"zh": "优先级", "en": "Priority"},
    "col_summary": {"zh": "一句话摘要", "en": "Summary"},
    "col_items": {"zh": "本期条目", "en": "Items this period"},
    "col_stage": {"zh": "阶段", "en": "Stage"},
    "col_count": {"zh": "数量", "en": "Count"},
    # the activity tables list a copy of a change (a resubmission, a cherry-pick) apart; here it is its original's
    "col_area_items": {"zh": "条目（副本计一次）", "en": "Items (copies counted once)"},
    "col_source": {"zh": "数据源", "en": "Source"},
    "col_status": {"zh": "状态", "en": "Status"},
    "col_note": {"zh": "说明", "en": "Note"},
    "col_level": {"zh": "覆盖度", "en": "Coverage"},
    "col_high_items": {"zh": "高优先级条目", "en": "High-priority items"},
    "repo_rollup": {"zh": "按仓库汇总", "en": "By repository"},
    "col_repo": {"zh": "仓库", "en": "Repository"},
    "col_prs": {"zh": "PR", "en": "PRs"},
    "col_issues": {"zh": "Issue", "en": "Issues"},
    "col_high": {"zh": "高优先级", "en": "High"},
    "col_top_areas": {"zh": "主要领域", "en": "Main areas"},
    "stage_github": {"zh": "GitHub 条目采集", "en": "GitHub items collected"},
    "stage_community": {"zh": "社区条目采集", "en": "Community items collected"},
    "stage_fused": {"zh": "融合后总数", "en": "Total after fusion"},
    "stage_noise": {"zh": "其中噪声", "en": "of which noise"},
    "stage_duplicates": {"zh": "其中重复", "en": "of which duplicates"},
    "stage_high": {"zh": "高优先级", "en": "High priority"},
    "stage_medium": {"zh": "中优先级", "en": "Medium priority"},
    "stage_low": {"zh": "低优先级", "en": "Low priority"},
    # Every focus entry is analysed for its fix state and action; the deep ones also for these fields.
    "stage_deep": {
        "zh": "深度分析（另含概要、根因、影响与临时方案）",
        "en": "Deep-analysed (also summary, root cause, impact and workaround)",
    },
    "no_sources": {
        "zh": "（没有本窗口的采集记录：数据来自导入）",
        "en": "(no collection recorded for this window: the data was imported)",
    },
    "star_note": {"zh": "⭐ 表示进入重点关注列表。", "en": "⭐ marks items in the focus list."},
    "no_activity": {"zh": "本期没有可列出的动态。", "en": "No item to list this period."},
    "no_analysis": {"zh": "（没有重点条目，因此没有分析）", "en": "(no focus item, so nothing was analysed)"},
    # The team's items are its listed people's, not every item of the team's areas.
    "team_line": {
        "zh": "这些成员本期 {count} 条动态，涉及 {areas}",
        "en": "items by these members: {count}; areas: {areas}",
    },
    # A name and a team are the profile's, which the collected threads do not carry.
    "contributors_named": {
        "zh": "姓名与团队取自配置文件中的关键贡献者名单，而非收集到的数据。",
        "en": "Names and teams come from the profile's list of key contributors, not from the collected data.",
    },
    "no_contributors": {
        "zh": "（本窗口没有可列出的作者：每个条目的作者都未知、是机器人账号，或其条目全是噪声）",
        "en": "(no author to list in this window: each item's author is unknown, a bot, or has only noise items)",
    },
    "no_teams": {
        "zh": "（本窗口没有配置所列团队成员的动态）",
        "en": "(no activity in this window from members of the teams the profile lists)",
    },
    "footer": {
        "zh": "由 {generator} 生成 · 配置 {profile} · 读者 {reader} · 分析器 {analyser}",
        "en": "Generated by {generator} · profile {profile} · reader {reader} · analyser {analyser}",
    },
    "analyser_rules": {"zh": "规则（离线）", "en": "rules (offline)"},
    "llm_usage": {
        "zh": "模型调用 {calls} 次，输入/输出 tokens {tokens_in}/{tokens_out}，缓存命中 {cache_hits}，"
        "回退到规则 {fallbacks} 次",
        "en": "model calls {calls}, tokens in/out {tokens_in}/{tokens_out}, cache hits {cache_hits}, "
        "fallbacks to rules {fallbacks}",
    },
    "accounting": {"zh": "分析来源与核查", "en": "Who wrote the analysis"},
    "col_analyser": {"zh": "分析器", "en": "Analyser"},
    "col_kept": {"zh": "保留句数", "en": "Sentences kept"},
    "col_dropped": {"zh": "删除句数（无来源支撑）", "en": "Sentences dropped (unsupported)"},
    "accounting_rules": {
        "zh": "“—”：规则分析器逐字引用原文、套用固定句式，不生成自由文本，因此没有需要核查或删除的句子。",
        "en": "“—”: the rule analyser quotes its sources word for word in fixed sentence patterns and writes no free "
        "text, so there is none to check or drop.",
    },
    "archive_title": {"zh": "报告归档", "en": "Report archive"},
    "level_high": {"zh": "高", "en": "high"},
    "level_medium": {"zh": "中", "en": "medium"},
    "level_low": {"zh": "低", "en": "low"},
    "priority_high": {"zh": "高", "en": "high"},
    "priority_medium": {"zh": "中", "en": "medium"},
    "priority_low": {"zh": "低", "en": "low"},
    "status_ok": {"zh": "正常", "en": "ok"},
    "status_partial": {"zh": "部分", "en": "partial"},
    "status_skipped": {"zh": "跳过", "en": "skipped"},
    "status_failed": {"zh": "失败", "en": "failed"},
    "action_follow": {"zh": "跟进", "en": "follow"},
    "action_track": {"zh": "追踪", "en": "track"},
    "action_adapt": {"zh": "适配", "en": "adapt"},
    "action_ignore": {"zh": "忽略", "en": "ignore"},
    "urgency_P0": {"zh": "P0 立即处理", "en": "P0 act now"},
    "urgency_P1": {"zh": "P1 本周内", "en": "P1 this week"},
    "urgency_P2": {"zh": "P2 观察", "en": "P2 watch"},
    # What to do, aimed at the item to act on (analysis/action.py); {ref} is that item.
    "do_check_and_track": {
        "zh": "立即核对你的代码路径是否受影响，并追踪 {ref}",
        "en": "check now whether your code path is affected, and track {ref}",
    },
    "do_track": {
        "zh": "追踪 {ref}，确认你的场景是否受影响",
        "en": "track {ref} and check whether your setup is affected",
    },
    "do_follow_fix": {
        "zh": "跟进修复 {ref} 直到合入，在此之前核对你的场景是否受影响",
        "en": "follow the fix {ref} until it lands, and until then check whether your setup is affected",
    },
    "do_check_build": {
        "zh": "确认你使用的构建包含修复 {ref} 并覆盖你的场景",
        "en": "check that your build contains the fix {ref} and that it covers your case",
    },
    "do_review_pr": {"zh": "审阅此 PR（{ref}）并推动其合入", "en": "review this PR ({ref}) and see it land"},
    "do_test_landed": {
        "zh": "用包含 {ref} 的构建测试你的工作负载",
        "en": "test your workload on a build that contains {ref}",
    },
    "do_reverted": {
        "zh": "在重新合入前不要依赖 {ref}，关注其重新合入",
        "en": "do not rely on {ref} until it relands, and watch for the reland",
    },
    "do_adapt_api": {"zh": "检查你的代码是否需要随 {ref} 调整", "en": "check whether your code must follow {ref}"},
    "do_rfc": {"zh": "阅读 {ref} 并参与讨论", "en": "read {ref} and comment"},
    "do_rfc_closed": {"zh": "阅读 {ref}，了解其结果", "en": "read {ref} to see how it ended"},
    "do_check_closed": {
        "zh": "确认 {ref} 是否确已修复，以及修复是否进入你使用的版本",
        "en": "check whether {ref} was really fixed and whether the fix is in the version you use",
    },
    "do_check_reverted": {
        "zh": "确认 {ref} 是否已被回退、之后是否重新合入，以及你的构建包含的是哪一版",
        "en": "check whether {ref} was reverted, whether it landed again since, and which of the two your build has",
    },
    "do_check_landed": {
        "zh": "确认 {ref} 是否已合入，若已合入，确认你的构建包含它",
        "en": "check whether {ref} landed and, if so, that your build has it",
    },
    "do_nothing": {"zh": "无需行动", "en": "nothing to do"},
    # Why the urgency is what it is: harm as the sources state it, and where the fix stands.
    "because_open_severe": {
        "zh": "问题仍开放，且来源报告的是{harm}",
        "en": "still open, and its sources report {harm}",
    },
    "because_fix_pending_severe": {
        "zh": "修复尚未合入，而所修的是{harm}",
        "en": "the fix has not landed, and the problem it fixes is {harm}",
    },
    "because_fix_pending": {"zh": "修复尚未合入", "en": "the fix has not landed yet"},
    "because_open": {
        "zh": "本报告排为高优先级，问题仍开放",
        "en": "ranked high in this report and still open",
    },
    "because_medium": {"zh": "本报告排为中等优先级，仍未解决", "en": "ranked medium in this report, still open"},
    "because_fixed_severe": {
        "zh": "修复已合入；所修的是{harm}，须确认你的构建包含它",
        "en": "the fix has landed; the problem was {harm}, so make sure your build has it",
    },
    "harm_wrong_result": {"zh": "错误结果", "en": "a wrong result"},
    "harm_hard_crash": {"zh": "硬崩溃", "en": "a hard crash"},
    "harm_security": {"zh": "安全问题", "en": "a security problem"},
    "because_fixed": {"zh": "修复已合入", "en": "the fix has landed"},
    "because_closed_fix_superseded": {
        "zh": "已关闭；讨论中有人说其关联 PR 已被取代或放弃",
        "en": "closed; a comment says its linked PR was superseded or abandoned",
    },
    "because_closed_issue": {
        "zh": "已关闭，收集到的数据中没有与之关联的修复 PR",
        "en": "closed; the collected data links no fix PR to it",
    },
    "because_closed_pr_in_thread": {
        "zh": "已关闭；讨论中提到了 PR，但数据中没有它与此问题的关联，也看不出它是否已合入",
        "en": "closed; a comment speaks of a PR, but the data neither links it to the issue nor shows it landing",
    },
    "because_closed_linked_pr": {"zh": "已关闭；有 PR 与它以链接相连", "en": "closed; PRs are linked with it"},
    "because_closed_linked": {
        "zh": "已关闭，数据无法确认关联 PR 是否已合入",
        "en": "closed; whether its linked PRs landed is not shown",
    },
    "because_pending": {"zh": "PR 尚未合入", "en": "the PR has not landed yet"},
    "because_landed": {"zh": "已合入的改动", "en": "a landed change"},
    "because_closed_change": {"zh": "PR 已关闭，未确认合入", "en": "the PR was closed without a confirmed merge"},
    "because_merge_requested": {
        # The close may carry no date: which came first, the request or the close, is not said.
        "zh": "PR 已关闭，讨论中有人请求过合入，数据中没有合入确认",
        "en": "the PR is closed and a merge was asked for; the data shows no confirmation that it landed",
    },
    "because_closed_fix_severe": {
        "zh": "PR 已关闭、未确认合入，而所修的是{harm}",
        "en": "the PR was closed without a confirmed merge, and the problem it fixes is {harm}",
    },
    "because_revert_requested": {
        "zh": "PR 已关闭，讨论中有人请合并工具回退它",
        "en": "the PR is closed and a comment asks the merge tooling to revert it",
    },
    "because_fixed_said_linked": {
        "zh": "已关闭，讨论中有人说它已修复，但数据无法确认关联 PR 是否已合入",
        "en": "closed, and a comment says it is fixed; whether its linked PRs landed is not shown",
    },
    "because_fixed_said_referenced": {
        "zh": "已关闭，有人说它已修复；有 PR 引用它，但数据中看不出哪个修复已合入",
        "en": "closed, and it is said to be fixed; PRs reference it, but no fix is shown landing",
    },
    "because_fixed_said_pr_in_thread": {
        "zh": "已关闭，讨论中有人说它已修复；讨论中提到了 PR，但数据中没有它与此问题的关联",
        "en": "closed, and a comment says it is fixed; a comment speaks of a PR, which the data does not link to "
        "the issue",
    },
    "because_closed_referenced": {
        "zh": "已关闭；有 PR 引用它，但数据中看不出哪个修复已合入",
        "en": "closed; PRs reference it, but no fix is shown landing",
    },
    "because_fixed_said": {
        "zh": "已关闭，讨论中有人说它已修复，数据中没有修复 PR",
        "en": "closed, and a comment says it is fixed; the data holds no fix PR",
    },
    "because_landed_said": {
        "zh": "PR 已关闭，讨论中有人说它已合入",
        "en": "the PR is closed and a comment says it landed",
    },
    "because_picked": {
        "zh": "PR 已关闭，它的 cherry-pick 已合并",
        "en": "the PR is closed and a cherry-pick of it is merged",
    },
    "because_relanded": {
        "zh": "PR 已关闭，之后有 PR 重新合入它",
        "en": "the PR is closed and a later PR relands it",
    },
    "do_follow_reland": {
        "zh": "跟进重新合入它的 {ref}，确认其是否已合入",
        "en": "follow {ref}, which relands it, and check whether it landed",
    },
    "because_superseded": {
        "zh": "讨论中有人说此 PR 已被取代或放弃",
        "en": "a comment says this PR was superseded or abandoned",
    },
    "because_reverted": {"zh": "改动已被回退", "en": "the change was backed out"},
    "because_api": {"zh": "公共 API 变更或弃用", "en": "a public API change or deprecation"},
    "because_rfc": {"zh": "设计提案，讨论进行中", "en": "a design proposal under discussion"},
    "because_rfc_closed": {"zh": "设计提案，已关闭", "en": "a design proposal, now closed"},
    "because_low": {"zh": "本报告排为低优先级", "en": "ranked low in this report"},
    "action_plain": {"zh": "{action} · {urgency}", "en": "{action} · {urgency}"},
    "action_line": {"zh": "{action} · {urgency}：{because}", "en": "{action} · {urgency}: {because}"},
    "selection": {
        # The priority is the report's own ranking, said as such (no source states it).
        "zh": "本报告列为{priority}优先级，属于{areas}：{why}。建议{action}（{urgency}）：{action_why}。",
        "en": "ranked {priority} priority here, in {areas}: {why}. Suggested: {action} ({urgency}), {action_why}.",
    },
    "relation_fixes": {"zh": "修复 {ref}", "en": "fixes {ref}"},
    "relation_fixes_partial": {"zh": "部分修复 {ref}", "en": "partly fixes {ref}"},
    # The PR says it fixes the item; whether it landed is the fix state's to say, not the link's.
    "relation_fixed_by": {"zh": "修复 PR：{ref}", "en": "fix PR: {ref}"},
    "relation_fixed_by_partial": {"zh": "部分修复 PR：{ref}", "en": "partial fix PR: {ref}"},
    "relation_tests": {"zh": "为 {ref} 补充测试", "en": "adds a test for {ref}"},
    "relation_tested_by": {"zh": "测试由 {ref} 补充", "en": "test added by {ref}"},
    "relation_lands": {"zh": "合入 {ref}", "en": "lands {ref}"},
    "relation_landed_by": {"zh": "由提交 {ref} 合入", "en": "landed by {ref}"},
    "relation_reverts": {"zh": "回退 {ref}", "en": "reverts {ref}"},
    "relation_reverted_by": {"zh": "被 {ref} 回退", "en": "reverted by {ref}"},
    "relation_relands": {"zh": "重新合入 {ref}", "en": "relands {ref}"},
    "relation_relanded_by": {"zh": "由 {ref} 重新合入", "en": "relanded by {ref}"},
    "relation_picks": {"zh": "cherry-pick 了 {ref}", "en": "cherry-picks {ref}"},
    "relation_picked_by": {"zh": "被 {ref} cherry-pick", "en": "cherry-picked in {ref}"},
    "relation_duplicate": {"zh": "与 {ref} 重复", "en": "duplicate of {ref}"},
    "relation_copy": {"zh": "同一改动另提交为 {ref}", "en": "also submitted as {ref}"},
    "relation_copy_report": {"zh": "同一问题另报告为 {ref}", "en": "also reported as {ref}"},
    "relation_stack": {"zh": "同一 ghstack：{ref}", "en": "stacked with {ref}"},
    "relation_names": {"zh": "正文提到 {ref}", "en": "names {ref}"},
    "relation_named_by": {"zh": "{ref} 的正文提到它", "en": "named by {ref}"},
    "relation_related": {"zh": "相关：{ref}", "en": "related to {ref}"},
    "relation_related_name": {
        "zh": "相关：{ref}（两者都提到 `{name}`）",
        "en": "related to {ref} (both mention `{name}`)",
    },
    "relation_similar": {"zh": "标题相近：{ref}", "en": "similar title: {ref}"},
    "relation_series": {"zh": "同一作者的相关改动：{ref}", "en": "same author's series: {ref}"},
    "relation_series_name": {
        "zh": "同一作者的相关改动：{ref}（两者都提到 `{name}`）",
        "en": "same author's series: {ref} (both mention `{name}`)",
    },
    "relation_tracks": {"zh": "跟踪 {ref}", "en": "tracks {ref}"},
    "relation_tracked_by": {"zh": "由 {ref} 跟踪", "en": "tracked in {ref}"},
    "relation_discusses": {"zh": "讨论 {ref}", "en": "discusses {ref}"},
    "relation_discussed_in": {"zh": "在 {ref} 中讨论", "en": "discussed in {ref}"},
    "kind_issue": {"zh": "Issue", "en": "Issue"},
    "kind_pull_request": {"zh": "PR", "en": "PR"},
    "kind_rfc": {"zh": "RFC", "en": "RFC"},
    "kind_commit": {"zh": "Commit", "en": "Commit"},
    "kind_forum": {"zh": "论坛", "en": "Forum"},
    "kind_blog": {"zh": "博客", "en": "Blog"},
    "kind_event": {"zh": "活动", "en": "Event"},
    "kind_slack": {"zh": "Slack", "en": "Slack"},
    "group_pull_request": {"zh": "Pull Requests", "en": "Pull Requests"},
    "group_issue": {"zh": "Issues", "en": "Issues"},
    "group_rfc": {"zh": "RFC", "en": "RFCs"},
    "group_commit": {"zh": "Commits", "en": "Commits"},
    "group_forum": {"zh": "论坛", "en": "Forum"},
    "group_blog": {"zh": "博客 / 公告", "en": "Blog / announcements"},
    "group_event": {"zh": "活动", "en": "Events"},
    "group_slack": {"zh": "Slack", "en": "Slack"},
    **FIX_STATE,
    **PROSE,
}

PRIORITY_MARK = {"high": "🔴", "medium": "🟡", "low": "🟢"}
STATUS_MARK = {"ok": "✅", "partial": "⚠️", "skipped": "⚠️", "failed": "❌"}
FOLLOW_UP_MARK = {
    "fixed": "✅",
    "merged": "✅",
    "closed": "☑️",
    "reopened": "🔁",
    "regressed": "↩️",
    "open": "⏳",
    "unchanged": "➖",
    "missing": "❔",
}


class Catalogue:
    def __init__(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ConfigError(f"unknown language {lang!r} (available: {', '.join(LANGUAGES)})")
        self.lang = lang

    def __call__(self, key: str, **params: Any) -> str:
        return MESSAGES[key][self.lang].format(**params)

    @property
    def list_separator(self) -> str:
        return "、" if self.lang == "zh" else ", "

    @property
    def full_stop(self) -> str:
        return "。" if self.lang == "zh" else ". "

    @property
    def clause_separator(self) -> str:
        return "；" if self.lang == "zh" else "; "
