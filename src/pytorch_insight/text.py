"""Reading issue and PR bodies: template sections, prose without code or markup, sentences; each
pass linear in the body, which is cut at GitHub's own limit first. And what of a source may reach a
reader: links only to http(s) and mailto addresses, text without control characters."""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from pytorch_insight.disclosure import ASSISTANT_LINE, CARRIED_OVER, disclosure, unsaid
from pytorch_insight.guard import guard
from pytorch_insight.headings import ROLE_OF

# Every pattern here reads a whole body, so each must stay linear in it: no `\s` that can run across
# lines after a `^` (on 64k newlines each line start would rescan the rest of the body), every
# unbounded run stops at the character that could start the next attempt ("[" for a link text,
# "(" for a destination, "<" for a tag), so no two attempts scan the same characters, and leading
# blanks are possessive (`*+`): a line of 64k spaces is not given back one space at a time.
# The hashes of a heading are followed by a blank or end the line (CommonMark, as GitHub renders it):
# "#139833 broke the options" opens with an issue reference and is a sentence, not a heading.
HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?$", re.M)
# A heading that names a section: its text starts with something other than a blank (the run of
# blanks is possessive, so a line of "# " is refused at once). Empty headings ("# " lines by the
# thousand) start no section: each would cost a name and a slice for nothing. A heading inside a
# quoted passage ("> ### Root cause") names its section too.
QUOTE_MARKS = r"(?:>[ \t]?)"  # "> " marks at a line's start: a quoted passage (Markdown)
NAMED_HEADING = re.compile(rf"^[ \t]{{0,3}}{QUOTE_MARKS}*+#{{1,6}}[ \t]++([^\s][^\n]*)$", re.M)
# "**Root cause:** the offset ...", "Workaround: set ...": an author's lead-in heads a section as a
# Markdown heading does, and the section runs on from the rest of its line. In bold it heads one
# whatever it names (followed by a colon, or alone on its line); plain, only when it names a role:
# any line may begin "RuntimeError:" or "Note:". Its runs are bounded, so each line start costs a
# fixed amount.
BOLD_LEAD = re.compile(r"^[ \t]{0,3}\*\*([^*\n]{1,40}?)[ \t]*(?::[ \t]*\*\*|\*\*[ \t]*:|\*\*(?=[ \t]*$))[ \t]*", re.M)
# "**Summary**" alone on its line is a heading in bold: it goes from the prose as a heading does, or
# it would open the next sentence ("Summary There is an accuracy issue ..."). With a colon
# ("**Crash output:**") it announces what follows, and stays.
BOLD_HEADING_LINE = re.compile(r"^[ \t]{0,3}\*\*[^*\n]{1,40}?(?<!:)\*\*[ \t]*$", re.M)
PLAIN_LEAD = re.compile(r"^[ \t]{0,3}([A-Za-z][A-Za-z ;/-]{0,30}?)[ \t]*:[ \t]*", re.M)
# A fence opens a line (after its indent or a quote's marks) and closes on a line of its own with at
# least as many backticks, and its info string holds no backtick (CommonMark's rules, which GitHub
# renders by). "by ```foo```, which ..." in a sentence is a code span: read as a fence, its closing
# run would open one that swallows the prose up to the next block and leaves that block's code as prose.
FENCE = re.compile(r"^[ \t>]*+(?P<ticks>`{3,})[^\n`]*\n(?P<code>.*?)(?:^[ \t>]*+(?P=ticks)`*+[ \t]*+$|\Z)", re.S | re.M)
IMAGE = re.compile(r"!\[[^\[\]]*\]\([^()]*\)|<img\b[^<>]*>", re.I)
# Only the tags GitHub renders: `#include <nccl.h>` and `std::vector<int>` are text, kept verbatim.
HTML_TAG = re.compile(
    r"</?(?:a|b|i|p|br|hr|em|strong|code|pre|kbd|sub|sup|span|div|img|details|summary|table|thead|tbody|tr|td|th|"
    r"ul|ol|li|h[1-6]|blockquote|picture|source|video|del|ins|s|u|small|center|font|samp|var|dl|dt|dd|abbr)"
    r"(?=[\s/>])[^<>]*>",
    re.I,
)
LINK = re.compile(r"\[([^\[\]]+)\]\((?:[^()]++|\([^()]*+\))*+\)")
# The lookahead holds the first letters of the lines below: a blank line fails at once instead of
# trying each line's words in turn (a body of 64k newlines has 64k line starts).
BOILERPLATE = re.compile(
    # a quoted description ("> ") carries its boilerplate quoted
    r"^[ \t]*+(?:>[ \t]*+)?(?=[cs*dpartf\[])(?:cc:?[ \t]+@.*|Stack from \[ghstack\].*|"
    # a ghstack list line, "* __->__ #12" or, linked, "* **->** [[tag] Title #12](https://github.com/o/r/pull/12)"
    r"\*[ \t]+(?:(?:__|\*\*)->(?:__|\*\*)[ \t]+)?"
    r"(?:#\d+|\[[^\n]*#\d+\]\(https?://github\.com/[^\s)]+/pull/\d+\))[ \t]*|"
    r"Differential Revision:.*|Pull Request resolved:.*|Approved by:.*|Reviewed By:.*|"
    r"(?:Fixes|Closes|Resolves):?[ \t]+(?:#\d+|https?://\S+)\.?[ \t]*|Test Plan:?[ \t]*|"
    # a GitHub alert's marker line ("> [!NOTE]")
    r"\[!(?:note|tip|important|warning|caution)\][ \t]*|"
    # a line saying who or what wrote the text ("**Disclosure (AI policy):** This PR was drafted with an AI
    # coding assistant", "Prepared with an AI assistant", "Authored with <a tool>")
    r"(?:Authored with .*|(?:\*\*[^*\n]{1,40}\*\*[ \t]*)?(?:(?:this|the|prepared|drafted|authored)\b[^\n]*?)?"
    r"\b(?:ai[- ](?:generated|assisted)|(?:with|by|using) (?:the (?:assistance|help) of |assistance from )?"
    rf"an ai)\b.*){CARRIED_OVER})$",
    re.I | re.M,
)
# The author speaking of the report rather than the problem ("Apologies for posting an AI-generated
# report, but ...", "I lost an entire morning to this bug."): no summary, impact or cause. Its other
# words may still name the setup (two GPUs, Windows), so the facts read it; the quoting does not.
AUTHOR_ASIDE = re.compile(
    r"^\W*(?:(?:(?:my\s+)?apolog(?:ies|ize|ise)|sorry)\b|"
    r"i\s+(?:lost|spent|wasted|burned|burnt)\s+(?:an?\s+|the\s+|my\s+)?(?:entire\s+|whole\s+|full\s+|good\s+)?"
    r"(?:morning|afternoon|evening|day|night|week|weekend|hours?|days)\b)",
    re.I,
)


# "This one was a wild ride :)": a remark that ends on a smiley is the author's mood, not a finding.
SMILEY_END = (":)", ";)", ":-)", ";-)", ":D", ":P", ":(", ":-(")


def aside(sentence: str) -> bool:
    """The sentence is the author speaking of the report, of their time or of their mood, not of the
    problem."""
    return AUTHOR_ASIDE.match(sentence) is not None or sentence.rstrip().endswith(SMILEY_END)


# fbcode exports: "Summary:" opens the description, "Test Plan:" a block of commands and links that
# runs up to the reviewers, the revision or the end.
SUMMARY_PREFIX = re.compile(r"^[ \t]*+Summary:\s*", re.M)
TEST_PLAN = re.compile(
    r"^[ \t]*+Test Plan:.*?(?=^[ \t]*+(?:Reviewed By|Differential Revision|Rollback Plan|cc )|\Z)", re.M | re.S
)
# Issue-template prompts kept as plain lines: "1) What is the root cause problem".
TEMPLATE_PROMPT = re.compile(
    r"^[ \t]*+\d++[.)][ \t]*+(?:what|why|how|who|when|where|is|are|does|do|did)\b[^.!?\n]*+$", re.I | re.M
)
# Sentences that are no statement about the item: requests to review bots, checklist items,
# stack-trace lines (questions are told by `_is_question`). What starts a sentence is matched at its
# start alone, and what may stand anywhere is looked for by its first character ("@", ","), which the
# engine skips to: one case-blind alternation of both was tried at every position of every sentence.
NOT_A_STATEMENT_START = re.compile(r"\[[ xX]\]|File \"|Traceback\b|\s*at [\w.$]+\(", re.I)
NOT_A_STATEMENT_ANYWHERE = re.compile(r"@\w*(?:claude|copilot|codex|gemini|bot)\b|, line \d+, in \w", re.I)
# "@alice @bob it looks like …": the people asked, not what is said; but "@alice pointed this out when
# …" names who did something (a past-tense verb follows, no comma), and is the sentence's subject.
LEADING_MENTIONS = re.compile(r"^(?:@[\w-]++[,:]?\s*+)++")
PAST_VERB = re.compile(r"[a-z]+ed\b")
NON_WORD_RUN = re.compile(r"\W*")
LETTER = re.compile(r"[^\W\d_]")  # str.isalpha in one C loop: a 64k "sentence" of underscores has none
# A full stop ends a sentence unless it closes a common abbreviation ("e.g.", "i.e.", "vs."); the
# abbreviations are looked for only before a space (not after each dot of "1.1.1.1"). Every way a
# sentence ends starts with a blank, taken first so that the engine skips from blank to blank; what
# stands before it is looked behind for, the blank included.
SENTENCE_END = re.compile(
    r"\s(?:(?<=[.!?]\s)(?<!\be\.g\.\s)(?<!\bi\.e\.\s)(?<!\bvs\.\s)(?<!\betc\.\s)(?<!\bcf\.\s)(?<!\bapprox\.\s)"
    r"(?<!\bNo\.\s)(?<!\bDr\.\s)\s*(?=[A-Z`\"'(\[@])|(?<=\n)\s*\n|(?<=\n)(?=\s*(?:[-*]|\d+[.)])\s))"
)
# Blank lines between two lines of text: one says as much as 64k of them, and every later pattern
# that starts at a line start has far fewer to try.
BLANK_LINES = re.compile(r"\n[ \t\n]*\n")
# Markdown bold around words ("**Note**"): its markers go, its words stay. A "**" inside a word or a
# number is the text itself ("2**32", "x**2"), and `__` is left alone, since it belongs to names
# such as __torch_dispatch__. The inner run stops at the next star: each attempt reads to it only.
EMPHASIS = re.compile(r"(?<![\w*])\*\*(?=[^\s*])([^*\n]{1,300}?)(?<=[^\s*])\*\*(?![\w*])")
# Lines whose layout is their meaning: a call tree or a diagram drawn with box or tree glyphs, or
# indented code pasted without a fence. A paragraph made mostly of them keeps its lines.
TREE_LINE = re.compile(r"[\u2500-\u257f]|^[ \t]*+(?:[|+`\\]-{2,}|\|[ \t]|->|=>)")
INDENTED_CODE = re.compile(r"^[ \t]{2,}+\S[^\n]*?(?:[(){};=]|->|::)")
CODE_LINES = 2  # lines of a paragraph that must look like code for it to keep its layout
EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]\s*")
# GitHub's limit for an issue, PR or comment body: a longer text (an import, a feed) is cut before
# any pattern reads it, so no body costs more than the largest one GitHub accepts.
BODY_LIMIT = 65_536
# C0 and C1 control characters but tab and newline, bidirectional marks, embeddings, overrides and
# isolates (they reorder what a reader sees: U+202E turns "txt.exe" around), lone surrogates
# (UTF-8 cannot encode them) and the two non-characters XML refuses.
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)
# The only addresses a report links to; anything else (javascript:, data:, vbscript:, a relative
# path, a scheme behind spaces) is shown as text.
SAFE_URL = re.compile(r"(?:https?://[^\s/?#]|mailto:\S)\S*", re.I)
TITLE_LIMIT = 300  # characters of a title printed in a heading, a table or the archive
MAX_SENTENCE = 400
# Words no statement ends on. A text whose last sentence stops on one was cut in mid-clause (by the
# copy it came from, or at BODY_LIMIT): the sentence is quoted with an ellipsis marking the cut, as
# a sentence cut at MAX_SENTENCE is, so no quote reads as if the source said no more.
CUT_OFF = frozenset(
    "a an the of to for with from into onto via and or but nor than because whose its their our your my".split()
)
# A text this long may be a capture's excerpt: one whose last sentence stops without a mark was cut.
CAPTURED = 1_000
# A sentence is judged by its beginning (and its end, for a question): it is printed cut to
# MAX_SENTENCE anyway, and a 64k run without a full stop is no sentence to read through.
SENTENCE_READ = 4 * MAX_SENTENCE


# "A workaround would be appreciated", "could you look into it", "is there any fix?": the author asks
# for something; what they ask for is not what the thread states.
REQUEST = re.compile(
    r"\b(?:would be (?:appreciated|great|nice|helpful|welcome)|please|could (?:you|someone|anyone)|"
    r"can (?:you|someone|anyone)|is there (?:a|an|any)|any (?:workarounds?|ideas?|suggestions?|help)|"
    r"looking for|need(?:s|ed)? (?:a |some )?(?:workaround|help)|if you (?:do )?confirm)\b",
    re.I,
)


@dataclass(frozen=True)
class Body:
    sections: dict[str, str]  # lower-cased heading (emoji removed) -> raw text under it; "" = before any heading
    code_blocks: list[str]


def bounded(text: str | None) -> str:
    """`text` cut at BODY_LIMIT characters, its lines ended by "\\n" alone (GitHub stores bodies
    with "\\r\\n"; the patterns end a line at "\\n" and take only blanks and tabs before it)."""
    text = (text or "")[:BODY_LIMIT]
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def heading_name(line: str) -> str:
    """A heading's text without the closing hashes (`## Versions ##`), emoji or trailing colon."""
    text = line.strip()
    name = text.rstrip("#").rstrip() or text  # a heading that is all hashes names itself
    return EMOJI.sub("", name).strip().lower().rstrip(":")


def parse_body(text: str | None) -> Body:
    """The body's sections by heading; a section under a lead-in keeps the lead-in in its text (the
    passes that read a template's "Summary:" or "Test Plan:" find it there), `section` cuts it off."""
    text = marked_if_cut(bounded(text))
    parts: dict[str, list[str]] = {}
    fences = [match.span() for match in FENCE.finditer(text)]
    starts = [
        (heading.start(), heading.end(), heading_name(heading.group(1)))
        for heading in NAMED_HEADING.finditer(text)
        if not _inside(heading.start(), fences)
    ]
    starts += [(start, start, name) for start, name in _leads(text, fences)]
    starts.sort()
    parts[""] = [text[: starts[0][0]] if starts else text]
    for index, (_, begin, name) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        # A heading said twice ("### Describe the bug" over "## Describe the bug") heads one section:
        # the text under each is kept, in order.
        parts.setdefault(name, []).append(text[begin:end])
    sections = {name: "\n\n".join(texts) for name, texts in parts.items()}
    return Body(sections, [block.group("code").strip() for block in FENCE.finditer(text)])


def _leads(text: str, fences: list[tuple[int, int]]) -> Iterator[tuple[int, str]]:
    """(start, name) of each lead-in outside code that heads a section: bold, or plain naming a role."""
    for pattern in (BOLD_LEAD, PLAIN_LEAD):
        for lead in pattern.finditer(text):
            name = heading_name(lead.group(1))
            if not _inside(lead.start(), fences) and (pattern is BOLD_LEAD or name in ROLE_OF):
                yield lead.start(), name.rstrip(".")


# collect_env's package list ("[pip3] numpy==2.2.6", "[conda] ...") and its header, pasted without the
# "Versions" heading that would make it a section of its own: what is installed, never a statement.
PACKAGE_LIST = re.compile(r"^[ \t]*+(?:\[(?:pip3?|conda)\][^\n]*+|Versions of relevant libraries:[ \t]*+)$", re.M)
# "> " at a line's start: a quoted passage (a reply's quote, a description pasted as a quote) is
# read as the text it quotes, its headings and code blocks as such, never with the marks in it.
BLOCKQUOTE = re.compile(rf"^[ \t]{{0,3}}{QUOTE_MARKS}+", re.M)
PROSE_PASSES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (BLOCKQUOTE, ""),
    (FENCE, "\n\n"),
    (TEST_PLAN, "\n\n"),
    (SUMMARY_PREFIX, ""),
    (TEMPLATE_PROMPT, "\n"),
    (PACKAGE_LIST, ""),
    (BOILERPLATE, unsaid),
    (ASSISTANT_LINE, unsaid),
    (IMAGE, " "),
    (HTML_TAG, " "),
    (LINK, r"\1"),
    (HEADING, "\n\n"),
    (BOLD_HEADING_LINE, "\n\n"),
    (EMPHASIS, r"\1"),
)
# A run of blanks after a word, the run a single space already is left out: `(?<=\S)[ \t]+` as a
# pattern that starts with a blank (the engine skips to the next one), whose word before it is
# looked behind for, and that is a tab or goes on (one space between words is folded already).
BLANKS_AFTER_WORD = re.compile(r"[ \t](?<=\S[ \t])(?:(?<=\t)|(?=[ \t]))[ \t]*")


def prose(text: str) -> str:
    """Text a person wrote, without code blocks, images, HTML tags, ghstack and cc boilerplate."""
    text = BLANK_LINES.sub("\n\n", bounded(text))
    for pattern, replacement in PROSE_PASSES:
        # A pass the text holds no string for is skipped (see guard): most are tried at every
        # line start or, led by a lookbehind, at every position.
        if guard(pattern).may_match(text):
            text = pattern.sub(replacement, text)
    # Runs of blanks between words fold; the indentation that starts a line stays (a call tree's).
    return BLANKS_AFTER_WORD.sub(" ", text).strip()


def shorten(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def excerpt(sentence: str, words: str = "", limit: int = 120) -> str:
    """`sentence` on one line, or when it is longer than `limit`, the part of it that holds `words`
    (the words that state the fact), cut at word boundaries with an ellipsis marking each cut. A
    sentence that leads in ("... fails with:") is marked as one whose log or code is left out."""
    flat = " ".join(sentence.split())
    if len(flat) <= limit:
        return _lead_in_marked(flat)
    at = flat.lower().find(" ".join(words.split()).lower()) if words.strip() else -1
    if at < 0 or at + len(words) < limit - 1:
        return shorten(flat, limit)
    begin = max(0, at - (limit - len(words)) // 3)  # a little of what leads up to the words
    space = flat.find(" ", begin, at)
    begin = space + 1 if space >= 0 else at
    return _lead_in_marked("…" + shorten(flat[begin:], limit - 1))


def _lead_in_marked(quote: str) -> str:
    """A quote that ends on its sentence's colon, with the mark that what the colon introduces is cut
    away: a quote ending in a colon points at nothing."""
    return left_out(quote) if quote.endswith(":") else quote


def left_out(lead: str) -> str:
    """A lead-in quoted without the log, code or list it introduces, marked so ("... fails with: …")."""
    return f"{lead} …"


CODE_SPAN = re.compile(r"`[^`\n]*`")


def code_only(sentence: str) -> bool:
    """Nothing but code spans ("`offsets[0] != dim`"): an item of a list of code, no statement."""
    return not LETTER.search(CODE_SPAN.sub("", sentence))


def lead_in(sentence: str) -> bool:
    """The sentence introduces what follows it ("...:"): a log, a list or code, which a quote cuts away;
    quoted with the cut marked ("...: …"), it still only introduces."""
    return sentence.rstrip().removesuffix("…").rstrip().endswith(":")


def sentences(text: str) -> list[str]:
    """Sentences (and list items) of prose, whitespace folded, empty ones dropped."""
    return list(_sentences(text))


# The deep analysis reads one body several times (summary, mechanism, root cause, workaround, the
# table's one line, the facts): each distinct text is split once.
@lru_cache(maxsize=512)
def _sentences(text: str) -> tuple[str, ...]:
    found = []
    parts = SENTENCE_END.split(prose(text))
    for number, part in enumerate(parts, start=1):
        laid = _laid_out(part)
        sentence = laid or " ".join(part.split()).lstrip("-* ").strip()
        head = sentence[:SENTENCE_READ]
        if NOT_A_STATEMENT_START.match(head) or NOT_A_STATEMENT_ANYWHERE.search(head) or disclosure(head):
            continue
        mentions = LEADING_MENTIONS.match(sentence)
        if mentions and (mentions.group().rstrip()[-1] in ",:" or not PAST_VERB.match(sentence, mentions.end())):
            sentence = sentence[mentions.end() :]
        if len(sentence) >= 12 and LETTER.search(sentence[:SENTENCE_READ]) and not _is_question(sentence):
            cut = (
                number == len(parts)
                and not laid
                and not sentence.endswith("…")  # marked already (`marked_if_cut`)
                and (_stops_mid_way(sentence) or _captured_short(text, sentence))
            )
            found.append(shorten(sentence + ("…" if cut else ""), MAX_SENTENCE))
    return tuple(found)


def _stops_mid_way(sentence: str) -> bool:
    """The text's last sentence stops where its copy was cut: on a word no statement ends on, or inside
    a code span, a bracket or a bold run it opened (a statement closes what it opens)."""
    if sentence[-20:].rsplit(" ", 1)[-1].lower() in CUT_OFF:
        return True
    return not sentence.endswith((".", "!", "?")) and (
        sentence.count("`") % 2 == 1
        or sentence.count("**") % 2 == 1
        or sentence.count("(") > sentence.count(")")
        or sentence.count("[") > sentence.count("]")
    )


def _captured_short(text: str, sentence: str) -> bool:
    """A long text whose last sentence stops on a word or a comma, no closing mark: the capture it came
    from cut it there (search and archive tools keep the first ~2,000 characters, often less)."""
    return len(text) >= CAPTURED and (sentence[-1:].isalnum() or sentence.endswith(","))


def marked_if_cut(text: str) -> str:
    """The text with "…" after its last word when a capture cut it there (`_captured_short`): each
    section of it is then read with the mark, however short the section."""
    end = text.rstrip()
    return f"{end}…" if _captured_short(end, end) else text  # its last sentence ends where it does


def _laid_out(part: str) -> str:
    """A paragraph that is mostly code-like lines (a call tree, unfenced code), its lines kept with
    their indentation (trailing blanks and blank lines removed); "" for a paragraph of prose."""
    if "\n" not in part.strip():
        return ""
    lines = [line.rstrip() for line in part.strip("\n").split("\n") if line.strip()]
    code = sum(1 for line in lines if TREE_LINE.search(line) or INDENTED_CODE.match(line))
    if code < CODE_LINES or 2 * code < len(lines):
        return ""
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    return "\n".join(line[indent:] for line in lines)


# A stop, perhaps inside a closing bracket, quote or emphasis: "(see #1).", "“…done.”".
STOPS = (".", "!", "?", ":", ";", ",", "…")
CLOSERS = ")]\"'”`*"


def join_sentences(found: list[str], adjacent: Callable[[str, str], bool] | None = None) -> str:
    """Sentences as one quote: prose on one line, a laid-out sentence (a call tree) on lines of its own;
    a list item that ends without a stop is kept from the next by "; " ("Pad the `header`; Check the size"),
    which would otherwise read as one run-on sentence (not from one that goes on in lower case). Given
    `adjacent`, two sentences the source does not write one after the other are joined by "…": the
    words between them are left out, and the quote says so."""
    text, after_lines, previous = "", False, ""
    for sentence in found:
        laid_out = "\n" in sentence
        if text:
            spaced = sentence[:1].islower() or text.rstrip(CLOSERS).endswith(STOPS)
            if adjacent is not None and not adjacent(previous, sentence) and not text.endswith("…"):
                text += " … "
            else:
                text += "\n" if laid_out or after_lines else " " if spaced else "; "
        text, after_lines, previous = text + sentence, laid_out, sentence
    return text


def sentences_cache_clear() -> None:
    """Forget the split texts (a benchmark times the split itself)."""
    _sentences.cache_clear()


def _is_question(sentence: str) -> bool:
    """A "?" among the punctuation that ends the sentence (template prompts among them). Read from
    the end: `\\?\\W*$` would rescan a run of "?!" from each of its characters."""
    return "?" in NON_WORD_RUN.match(sentence[::-1]).group(0)  # type: ignore[union-attr]


# Terminal escape sequences as a whole, in their 7-bit and 8-bit (C1) forms: CSI (`ESC [` ... a final
# byte: colours, cursor moves, clearing the screen), OSC (`ESC ]` ... BEL or ST: the window title,
# hyperlinks, the clipboard), DCS / SOS / PM / APC strings and two-byte escapes. Removing only the
# ESC would leave their parameters behind as visible text.
ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)


def plain_line(text: str, limit: int = 500) -> str:
    """Text from elsewhere (a server's error body, a note quoting one) as one line a terminal
    shows as it is: escape sequences and control characters gone, whitespace runs one space,
    at most `limit` characters."""
    text = CONTROL.sub("", ESCAPE_SEQUENCE.sub("", text.replace("\n", " ").replace("\t", " ")))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def strip_controls(text: str) -> str:
    """`text` without control characters and bidirectional overrides; line breaks become newlines."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL.sub("", text)


def safe_url(url: str | None) -> str | None:
    """`url` when a report may link to it (http, https, mailto), else None."""
    return url if url and SAFE_URL.fullmatch(url) and not CONTROL.search(url) else None


def in_code_block(text: str) -> Callable[[int], bool]:
    """Whether a position of `text` lies in one of its fenced code blocks (code, a log, a quoted diff:
    what it names, its author does not state)."""
    fences = [match.span() for match in FENCE.finditer(text)] if "```" in text else []
    return lambda position: _inside(position, fences)


def in_code_span(text: str) -> Callable[[int], bool]:
    """Whether a position of `text` lies in one of its inline code spans (a program's message a
    sentence quotes: its words are the program's, not the author's)."""
    spans = [match.span() for match in CODE_SPAN.finditer(text)] if "`" in text else []
    return lambda position: _inside(position, spans)


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    """`position` lies in one of the sorted, disjoint `spans` (a "# comment" line of a code block is
    no heading)."""
    at = bisect_right(spans, (position, sys.maxsize)) - 1
    return at >= 0 and spans[at][0] <= position < spans[at][1]


def section(body: Body, *names: str) -> str:
    """The first section whose heading holds one of `names` as words of its own ("why", not "whyte")."""
    for name in names:
        word = re.compile(rf"\b{re.escape(name)}\b")
        for heading, text in body.sections.items():
            if heading and name in heading and word.search(heading):
                return _without_lead(text)
    return ""


def _without_lead(text: str) -> str:
    """A lead-in's section without the lead-in ("**Root cause:**"), as a heading's is without the heading."""
    lead = BOLD_LEAD.match(text) or PLAIN_LEAD.match(text)
    return text[lead.end() :] if lead else text
