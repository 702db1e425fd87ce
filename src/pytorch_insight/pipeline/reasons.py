"""Reasons in words, in both report languages, built from one catalogue of templates."""

from __future__ import annotations

from dataclasses import dataclass

from pytorch_insight.config import LocalizedText

TEMPLATES: dict[str, dict[str, str]] = {
    "signal": {"en": "{what}", "zh": "{what}"},
    "comments": {"en": "{n} comments", "zh": "{n} 条评论"},
    "reactions": {"en": "{n} reactions", "zh": "{n} 个表情回应"},
    "participants": {"en": "{n} people in the thread", "zh": "{n} 人参与讨论"},
    "fix-exists": {"en": "fix PR exists: {refs}", "zh": "已有修复 PR：{refs}"},
    "fixes-severe": {"en": "fixes {ref} ({what})", "zh": "修复 {ref}（{what}）"},
    "key-contributor": {"en": "by key contributor {name} ({team})", "zh": "关键贡献者 {name}（{team}）"},
    "watched-person": {"en": "{reader} reader watches {login}", "zh": "{reader}读者关注 {login}"},
    "watched-keyword": {"en": "{reader} reader watches {keywords}", "zh": "{reader}读者关注 {keywords}"},
    "watched-path": {"en": "touches watched path {path}", "zh": "涉及关注路径 {path}"},
    "reader-weight": {"en": "{reader} reader weighs {area} x{weight}", "zh": "{reader}读者对{area}加权 ×{weight}"},
    "noise": {"en": "noise: {what}", "zh": "噪声：{what}"},
    "bot": {"en": "bot author {login}", "zh": "机器人作者 {login}"},
    "duplicate": {"en": "duplicate of {ref}", "zh": "与 {ref} 重复"},
}


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


def joined(reasons: list[Reason], separator: dict[str, str] | None = None) -> LocalizedText:
    """Several reasons as one phrase per language."""
    separator = separator or {"en": ", ", "zh": "、"}
    return LocalizedText(en=separator["en"].join(r.en for r in reasons), zh=separator["zh"].join(r.zh for r in reasons))
