"""Reasons in words, in both report languages, built from one catalogue of templates."""

from __future__ import annotations

from dataclasses import dataclass

from pytorch_insight.config import LocalizedText
from pytorch_insight.pickling import by_fields
from pytorch_insight.pipeline.facts import Fact
from pytorch_insight.text import excerpt

TEMPLATES: dict[str, dict[str, str]] = {
    "signal": {"en": "{what}", "zh": "{what}"},
    "comments": {"en": "{n} comments in the window", "zh": "窗口内 {n} 条评论"},
    "comment": {"en": "1 comment in the window", "zh": "窗口内 1 条评论"},
    "reactions": {"en": "{n} reactions", "zh": "{n} 个表情回应"},
    # Only comments inside the window count, as for "comments": a thread's earlier commenters are not
    # this window's discussion.
    "participants": {
        "en": "{n} people besides the author commented in the window",
        "zh": "本期除作者外 {n} 人参与讨论",
    },
    "participants-all": {"en": "{n} people commented in the window", "zh": "本期 {n} 人参与讨论"},
    "focus-fill": {
        "en": "one of the week's {n} best-ranked stories (few stood out more)",
        "zh": "本周排名前 {n} 的故事之一（本周突出的动态不多）",
    },
    "fix-exists": {"en": "fix PR exists: {refs}", "zh": "已有修复 PR：{refs}"},
    "fixes-several": {"en": "closes {n} reported issues: {refs}", "zh": "关闭 {n} 个已报告的问题：{refs}"},
    "fixes-severe": {"en": "fixes {ref} ({what})", "zh": "修复 {ref}（{what}）"},
    "fixed-by-severe": {"en": "its fix {ref} states: {what}", "zh": "其修复 {ref} 指出：{what}"},
    "same-change-severe": {"en": "the same change as {ref} ({what})", "zh": "与 {ref} 为同一改动（{what}）"},
    "tracks-severe": {"en": "tracks {ref} ({what})", "zh": "跟踪 {ref}（{what}）"},
    # A fact is shown by what states it, never by a category named after one of its words: the
    # sentence read (quoted), the triager's label, or the learned model's reading, said to be one.
    "fact": {"en": "the text says “{quote}”", "zh": "原文称“{quote}”"},
    "fact-label": {"en": "triage label “{label}”", "zh": "分诊标签“{label}”"},
    "fact-model": {
        "en": "the learned triage model reads it as {what} (p={p}): “{quote}”",
        "zh": "按分诊模型判断为{what}（概率 {p}）：“{quote}”",
    },
    "fact-hint": {
        "en": "the learned triage model leans towards {what} (p={p}, from “{quote}”)",
        "zh": "分诊模型倾向于认为是{what}（概率 {p}，依据：“{quote}”）",
    },
    "fact-mentions": {"en": "mentions “{detail}”", "zh": "提及“{detail}”"},
    "fact-measured": {"en": "measured “{detail}”", "zh": "实测“{detail}”"},
    "fact-release-regression": {
        "en": "a regression, with the release “{detail}” named",
        "zh": "回归，且点明版本“{detail}”",
    },
    "key-contributor": {
        # The list is the profile's, not the thread's: the reason says whose word it is, and names
        # no one the thread does not (a person's name and team are the profile's claim, not the data's).
        "en": "author @{login} is on the profile's key-contributor list",
        "zh": "作者 @{login} 在配置的关键贡献者名单中",
    },
    "watched-person": {"en": "{reader} reader watches {login}", "zh": "{reader}读者关注 {login}"},
    "watched-keyword": {"en": "{reader} reader watches {keywords}", "zh": "{reader}读者关注 {keywords}"},
    "watched-path": {"en": "touches watched path {path}", "zh": "涉及关注路径 {path}"},
    "reader-weight": {"en": "{reader} reader weighs {area} x{weight}", "zh": "{reader}读者对{area}加权 ×{weight}"},
    "learned": {
        "en": "the triage model reads it as {what} (p={p}), most on: “{sentence}”",
        "zh": "分诊模型判断为{what}（p={p}），依据：“{sentence}”",
    },
    "picked-like": {
        "en": "a model learned from experts' picks in {weeks} labelled weeks rates it a likely pick (p={p})",
        "zh": "由 {weeks} 个已标注周的专家选题学到的模型认为它很可能入选（p={p}）",
    },
    "high-like": {
        "en": "a model learned from the priorities experts gave in {weeks} labelled weeks rates it likely high "
        "priority (p={p}), which moves it up the list",
        "zh": "由 {weeks} 个已标注周的专家优先级学到的模型认为它很可能是高优先级（p={p}），因此在列表中上移",
    },
    "red-like": {
        "en": "a model learned from the experts' red stories in {weeks} labelled weeks rates it p={p}, at or above "
        "the bar of {bar} at which it finds {share} of them",
        "zh": "由 {weeks} 个已标注周的专家红色故事学到的模型给出 p={p}，不低于其门槛 {bar}"
        "（在此门槛下它能找出其中 {share}）",
    },
    "red-floor": {
        "en": "raised to high priority: the window had fewer than {n} high-priority stories, and a model learned "
        "from the experts' red stories in {weeks} labelled weeks rates it among the likeliest (p={p})",
        "zh": "提升为高优先级：本期高优先级故事不足 {n} 个，由 {weeks} 个已标注周的专家红色故事学到的模型"
        "认为它是本期最接近的条目之一（p={p}）",
    },
    "unlike-red": {
        "en": "kept below high priority: a model learned from the experts' red stories in {weeks} labelled weeks "
        "rates it p={p}, below the bar of {bar} at which it finds {share} of them",
        "zh": "未列为高优先级：由 {weeks} 个已标注周的专家红色故事学到的模型给出 p={p}，低于其门槛 {bar}"
        "（在此门槛下它能找出其中 {share}）",
    },
    "red-full": {
        "en": "kept below high priority: the window's {n} high-priority stories are those a model learned from the "
        "experts' red stories in {weeks} labelled weeks rates likeliest (this one: p={p})",
        "zh": "未列为高优先级：本期的 {n} 个高优先级故事是由 {weeks} 个已标注周的专家红色故事学到的模型"
        "评分最高的（本条 p={p}）",
    },
    "red-carried": {
        "en": "kept below high priority: its story is high priority through {ref}",
        "zh": "未单独列为高优先级：它所在的故事已通过 {ref} 列为高优先级",
    },
    "noise": {"en": "noise: {what}", "zh": "噪声：{what}"},
    "bot": {"en": "bot author {login}", "zh": "机器人作者 {login}"},
    "duplicate": {"en": "duplicate of {ref}", "zh": "与 {ref} 重复"},
}


# The fact kinds of pipeline/facts.py in words.
FACT_NAMES: dict[str, dict[str, str]] = {
    "wrong_result": {"en": "silent wrong results", "zh": "静默错误结果"},
    "security": {"en": "security", "zh": "安全问题"},
    "hard_crash": {"en": "hard crash", "zh": "硬崩溃"},
    "crash": {"en": "crash", "zh": "崩溃"},
    "hang": {"en": "hang", "zh": "挂起"},
    "memory": {"en": "memory growth", "zh": "内存增长"},
    "perf_regression": {"en": "slowdown", "zh": "性能下降"},
    "compile_time": {"en": "compile time", "zh": "编译耗时"},
    "blowup": {"en": "time blow-up", "zh": "耗时暴增"},
    "overhead": {"en": "measured overhead", "zh": "实测开销"},
    "blocker": {"en": "blocks an upgrade or release", "zh": "阻塞升级或发布"},
    "regression": {"en": "regression", "zh": "回归"},
    "release_regression": {"en": "regression with a named release", "zh": "点明版本的回归"},
    "error": {"en": "error", "zh": "报错"},
    "gain": {"en": "measured gain", "zh": "实测收益"},
    "measured": {"en": "measured", "zh": "实测"},
    "design": {"en": "design weight", "zh": "设计分量"},
    "confirmed": {"en": "confirmed by triage", "zh": "已被分诊确认"},
    "urgent": {"en": "reads like what triage marks high priority", "zh": "内容符合分诊的高优先级特征"},
    "hardware": {"en": "hardware", "zh": "硬件"},
    "scale": {"en": "scale", "zh": "规模"},
    "downstream": {"en": "downstream user", "zh": "下游用户"},
    "release": {"en": "release", "zh": "版本发布"},
    "default": {"en": "default path", "zh": "默认路径"},
}


@by_fields
@dataclass(frozen=True, slots=True)
class Reason:
    code: str
    en: str
    zh: str

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


Param = str | int | float | LocalizedText | Reason


def _value(param: Param, lang: str) -> str:
    if isinstance(param, LocalizedText):
        return param.zh if lang == "zh" else param.en
    if isinstance(param, Reason):
        return param.text(lang)
    return str(param)


def reason(code: str, *, tag: str | None = None, **params: Param) -> Reason:
    """A reason from the catalogue, formatted in both languages; `tag` (e.g. ``signal:crash``)
    tells apart reasons that share a template."""
    template = TEMPLATES[code]
    texts = {lang: template[lang].format(**{k: _value(v, lang) for k, v in params.items()}) for lang in ("en", "zh")}
    return Reason(tag or code, texts["en"], texts["zh"])


def speaking_for(reasons: list[Reason]) -> list[Reason]:
    """The reasons that speak for an item: all but the reader's weight of its area, which only scales
    what they score (at x0.9 it would read as a reason the item is there)."""
    return [r for r in reasons if r.code != "reader-weight"]


def joined(reasons: list[Reason], separator: dict[str, str] | None = None) -> LocalizedText:
    """Several reasons as one phrase per language."""
    separator = separator or {"en": ", ", "zh": "、"}
    return LocalizedText(en=separator["en"].join(r.en for r in reasons), zh=separator["zh"].join(r.zh for r in reasons))


# Facts whose words are themselves the fact (a hardware or user named, a release word): "mentions".
MENTIONED = frozenset({"hardware", "scale", "downstream", "release", "default"})
# What the learned model's classes read as, where the fact's own name is no noun phrase.
MODEL_NAMES: dict[str, dict[str, str]] = {
    "urgent": {"en": "high priority", "zh": "高优先级"},
    "edge_case": {"en": "an edge case or a fuzzer's find", "zh": "边界情况或模糊测试发现的问题"},
}
QUOTE_LIMIT = 100  # characters of a quoted sentence in a reason: several reasons share a line


def fact_reason(fact: Fact) -> Reason:
    """A fact as a reason, shown by what states it: the sentence (shortened around the words that
    state it), the triager's label, or the learned model's reading of a sentence, said to be one."""
    tag = f"fact:{fact.kind}"
    if fact.source == "label":
        return reason("fact-label", tag=tag, label=fact.detail or fact.evidence.removeprefix("label: "))
    if fact.source in ("model", "hint"):
        names = MODEL_NAMES.get(fact.kind) or FACT_NAMES.get(fact.kind, {"en": fact.kind, "zh": fact.kind})
        quote = excerpt(fact.evidence, limit=QUOTE_LIMIT)
        # The probability as the model gave it ("p=0.61"): its fact keeps it rounded for the ranking.
        p = fact.detail.removeprefix("p=")
        return reason(f"fact-{fact.source}", tag=tag, what=LocalizedText(**names), p=p, quote=quote)
    if fact.kind == "measured":
        return reason("fact-measured", tag=tag, detail=in_source_case(fact.detail, fact.evidence))
    if fact.kind == "release_regression":
        return reason("fact-release-regression", tag=tag, detail=fact.detail)
    if quotes_sentence(fact):
        return reason("fact", tag=tag, quote=excerpt(fact.evidence, fact.detail, QUOTE_LIMIT))
    return reason("fact-mentions", tag=tag, detail=in_source_case(fact.detail, fact.evidence))


def quotes_sentence(fact: Fact) -> bool:
    """The fact's reason quotes the sentence it was read from ("the text says “…”"), rather than a
    label, the model's reading, a name the sentence mentions or a number it measures."""
    return (
        fact.source == "text"
        and fact.kind not in (*MENTIONED, "measured", "release_regression")
        and not fact.evidence.startswith("environment: ")
    )


def in_source_case(words: str, sentence: str) -> str:
    """`words` as the sentence writes them (the phrase rules read a lower-cased copy: "2 gb" is "2 GB")."""
    at = sentence.lower().find(words.lower()) if words else -1
    return sentence[at : at + len(words)] if at >= 0 else words
