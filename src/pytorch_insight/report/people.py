"""Key contributors and teams: who did what this week, their most important items by number."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from pytorch_insight.config import Profile
from pytorch_insight.pipeline import Assessment
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.model import Contributor, Team
from pytorch_insight.text import shorten

TOP_AUTHORS = 10
PERSON_ITEMS = 3
PERSON_TITLE = 70


class PeopleWriter:
    def __init__(
        self,
        t: Catalogue,
        ref: Callable[[str], str],
        ranked: Sequence[Assessment],
        profile: Profile,
        area_names: Mapping[str, str],
    ) -> None:
        self.t, self.ref, self.ranked, self.profile, self.area_names = t, ref, ranked, profile, area_names

    def contributors(self) -> list[Contributor]:
        by_author: dict[str, list[Assessment]] = defaultdict(list)
        for assessment in self.ranked:
            author = assessment.item.author
            if author and not self.profile.is_bot(author):
                by_author[author].append(assessment)
        # An account whose every item is noise (automation filing DISABLED tests) is nobody's key person.
        by_author = {login: mine for login, mine in by_author.items() if any(not a.noise for a in mine)}
        known = {person.login.lower(): person for person in self.profile.contributors}
        key = sorted((login for login in by_author if login.lower() in known), key=str.lower)
        others = sorted(
            (login for login in by_author if login.lower() not in known),
            key=lambda login: (-len(by_author[login]), login.lower()),
        )[:TOP_AUTHORS]
        result = []
        for login in key + others:
            person = known.get(login.lower())
            mine = by_author[login]
            team = self.profile.teams.get(person.team) if person else None
            result.append(
                Contributor(
                    login=login,
                    name=person.name if person else None,
                    team=person.team if person else None,
                    team_name=(team.zh if self.t.lang == "zh" else team.en)
                    if team
                    else (person.team if person else None),
                    key=bool(person),
                    items=[a.id for a in mine],
                    areas=sorted({self.area_names.get(area, area) for a in mine for area in a.areas}),
                    line=self.person_line(mine),
                )
            )
        return result

    def person_line(self, mine: list[Assessment]) -> str:
        """Their most important items of the week (ranked order, noise and copies left out)."""
        best = [a for a in mine if not a.noise and not a.canonical][:PERSON_ITEMS]
        return self.t.list_separator.join(
            f"{self.ref(a.id)} {self.t('quoted', text=shorten(a.item.title or '', PERSON_TITLE))}" for a in best
        )

    def teams(self, contributors: list[Contributor]) -> list[Team]:
        result = []
        for team_id, name in self.profile.teams.items():
            members = [c for c in contributors if c.team == team_id]
            if not members:
                continue
            items = [item for c in members for item in c.items]
            areas = sorted({area for c in members for area in c.areas})
            result.append(
                Team(
                    id=team_id,
                    name=name.zh if self.t.lang == "zh" else name.en,
                    members=[c.login for c in members],
                    items=items,
                    areas=areas,
                    text=self.t("team_line", count=len(items), areas=self.t.list_separator.join(areas)),
                )
            )
        return result
