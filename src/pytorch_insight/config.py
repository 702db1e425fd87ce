"""Settings from the profile TOML, the user config file, the environment and the command line."""

from __future__ import annotations

import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping

import platformdirs
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from pytorch_insight.config_ranking import (  # noqa: F401  (re-exported: the profile's parts)
    Judgement,
    LocalizedText,
    Ranking,
    Regexes,
    SeverityVocabulary,
    Signal,
    _regexes,
)
from pytorch_insight.errors import ConfigError, describe_validation_error

APP_NAME = "pytorch-insight"
DEFAULT_PROFILE = "pytorch"
EVERYONE = "everyone"  # the reader of a profile that defines none: every area weighs the same
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_SLACK_API_URL = "https://slack.com/api"
POSTGRES_INSTALL = 'pip install "pytorch-insight[postgres]"'
REPOSITORY = re.compile(r"[\w.-]+/[\w.-]+")


def _landed_pattern(pattern: str) -> str:
    if "number" not in re.compile(_regexes([pattern])[0]).groupindex:
        raise ValueError(f"{pattern!r} needs a (?P<number>...) group for the PR number")
    return pattern


class GitHubProfile(BaseModel):
    repositories: list[str] = Field(default_factory=list)
    optional_repositories: list[str] = Field(default_factory=list)
    # Organisations collected whole through the search API (see sources/github_org.py), narrowed
    # by `include_repos` (only these of them) and `exclude_repos` (never these).
    orgs: list[str] = Field(default_factory=list)
    include_repos: list[str] = Field(default_factory=list)
    exclude_repos: list[str] = Field(default_factory=list)
    merge_bots: list[str] = Field(default_factory=list)
    merged_labels: list[str] = Field(default_factory=list)
    # A comment that asks the merge tooling to land a PR ("@pytorchbot merge"): in data that lacks
    # the merged label, the one sign a closed PR was meant to land.
    merge_commands: Regexes = Field(default_factory=list)
    # A comment that asks the merge tooling to revert a PR ("@pytorchbot revert"): the tooling
    # reverts what landed, so a closed PR's thread with one is no unknown.
    revert_commands: Regexes = Field(default_factory=list)
    landed_pattern: Annotated[str, AfterValidator(_landed_pattern)] = (
        r"Pull Request resolved:\s*https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/pull/(?P<number>\d+)"
    )
    rfc_title_tags: list[str] = Field(default_factory=lambda: ["[RFC]"])
    rfc_labels: list[str] = Field(default_factory=lambda: ["RFC"])

    @model_validator(mode="after")
    def _scope(self) -> GitHubProfile:
        if not self.repositories and not self.orgs:
            raise ValueError("needs `repositories` or `orgs`")
        orgs = {org.lower() for org in self.orgs}
        for name in (*self.repositories, *self.include_repos, *self.exclude_repos):
            if not REPOSITORY.fullmatch(name):
                raise ValueError(f"{name!r} is not an owner/name repository")
        for name in (*self.include_repos, *self.exclude_repos):
            if name.split("/")[0].lower() not in orgs:
                raise ValueError(f"{name!r} is not in any of `orgs` ({', '.join(self.orgs) or 'none'})")
        return self


class AreaRule(BaseModel):
    """A focus area and the evidence that puts an item into it (used by classification).

    Keywords are whole words or phrases; a trailing ``*`` makes a prefix (``recompil*``).
    Patterns are regular expressions over the original title and body.
    """

    id: str
    name: LocalizedText
    labels: list[str] = Field(default_factory=list)
    title_tags: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    patterns: Regexes = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    owners: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)
    fallback: bool = False


class ClassificationWeights(BaseModel):
    """How much each kind of evidence counts towards an area; an area needs `threshold`."""

    label: float = 3.0
    title_tag: float = 3.0
    pattern: float = 3.0
    kind: float = 3.0
    path: float = 2.0
    title_keyword: float = 2.0
    body_keyword: float = 0.75
    body_keyword_cap: float = 2.25
    owner: float = 1.0
    owner_cap: float = 3.0
    threshold: float = 2.0


class NoiseRule(BaseModel):
    """Items matching this rule stay in the counts but rank low (unless something lifts them)."""

    id: str
    reason: LocalizedText
    title_patterns: Regexes = Field(default_factory=list)
    labels: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)
    # False: a change this rule marks fixes nothing it names ("Add regression test for X. Fixes #N",
    # the bug fixed elsewhere); its closing keyword makes it part of the story, not its fix.
    fixes: bool = True
    # True: the title's words are only a guess at "no behaviour change" (a "refactor" or "[BE]" title);
    # a text that states a problem (a regression it removes, a crash) says otherwise, and the item is
    # read as any other.
    stated_problem_lifts: bool = False


class Contributor(BaseModel):
    login: str
    name: str
    team: str


class Reader(BaseModel):
    id: str
    role: LocalizedText
    area_weights: dict[str, float] = Field(default_factory=dict)
    watch_paths: list[str] = Field(default_factory=list)
    watch_people: list[str] = Field(default_factory=list)
    watch_keywords: list[str] = Field(default_factory=list)
    values: list[str] = Field(default_factory=list)


class ForumConfig(BaseModel):
    """A Discourse site; `categories` are the slugs of interest (empty: every category)."""

    name: str
    url: str
    categories: list[str] = Field(default_factory=list)


class FeedConfig(BaseModel):
    name: str
    url: str


class EventsConfig(BaseModel):
    """An events source: an iCalendar feed, or a page carrying schema.org Event data."""

    name: str
    url: str
    format: Literal["ical", "html"] = "ical"


class SlackConfig(BaseModel):
    channels: list[str] = Field(default_factory=list)
    workspace_url: str | None = None


class Profile(BaseModel):
    name: str
    title: LocalizedText
    github: GitHubProfile
    bots: list[str] = Field(default_factory=list)
    bot_suffixes: list[str] = Field(default_factory=lambda: ["[bot]"])
    areas: list[AreaRule] = Field(default_factory=list)
    classification: ClassificationWeights = Field(default_factory=ClassificationWeights)
    noise: list[NoiseRule] = Field(default_factory=list)
    ranking: Ranking = Field(default_factory=Ranking)
    severity: SeverityVocabulary = Field(default_factory=SeverityVocabulary)
    judgement: Judgement = Field(default_factory=Judgement)
    teams: dict[str, LocalizedText] = Field(default_factory=dict)
    contributors: list[Contributor] = Field(default_factory=list)
    readers: list[Reader] = Field(default_factory=list)
    default_reader: str = "generalist"
    forums: list[ForumConfig] = Field(default_factory=list)
    feeds: list[FeedConfig] = Field(default_factory=list)
    events: list[EventsConfig] = Field(default_factory=list)
    slack: SlackConfig = Field(default_factory=SlackConfig)

    def reader(self, reader_id: str | None) -> Reader:
        wanted = reader_id or self.default_reader
        for reader in self.readers:
            if reader.id == wanted:
                return reader
        if not self.readers and wanted in (self.default_reader, EVERYONE):
            return Reader(id=EVERYONE, role=LocalizedText(zh="所有读者", en="Every reader"))
        known = ", ".join(reader.id for reader in self.readers) or "none"
        raise ConfigError(f"unknown reader {wanted!r} (profile {self.name} has: {known})")

    def is_bot(self, login: str | None) -> bool:
        if not login:
            return False
        lowered = login.lower()
        return lowered in {bot.lower() for bot in self.bots} or lowered.endswith(tuple(self.bot_suffixes))


class HttpSettings(BaseModel):
    timeout: float = 30.0
    max_attempts: int = 5
    max_rate_limit_wait: float = 300.0
    user_agent: str = f"{APP_NAME} (+https://github.com/pytorch-insight)"
    # Where the processes of this machine share what GitHub says is left of each token (a small
    # SQLite file keyed by token hashes, github_ledger.py); default: the user's cache folder.
    budget_file: str | None = None


class LLMSettings(BaseModel):
    """An OpenAI-compatible model (OpenAI, DeepSeek, Qwen/DashScope, vLLM, Ollama, llama.cpp ...)."""

    model: str
    base_url: str | None = None
    api_key: SecretStr | None = None
    concurrency: int = Field(default=2, ge=1, le=32)
    timeout: float = 60.0
    max_attempts: int = Field(default=3, ge=1, le=10)
    budget_tokens: int | None = Field(default=None, ge=0)
    max_output_tokens: int = Field(default=700, ge=16)
    max_rate_limit_wait: float = 120.0


DeliveryKind = Literal["slack", "feishu", "dingtalk", "webhook", "email"]


class DeliveryTarget(BaseModel):
    """A `[[delivery]]` entry: where `deliver` sends the report. Secrets (webhook URLs carry their
    token, signing secrets, the SMTP login) come from the environment variables named by the
    `*_env` keys, or inline; they are read when sending, so a config loads without them."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(min_length=1, max_length=100, pattern=r"^[\w.-]+$")
    type: DeliveryKind
    url: SecretStr | None = None
    url_env: str | None = None
    secret: SecretStr | None = None
    secret_env: str | None = None
    lang: Literal["zh", "en"] | None = None
    reader: str | None = None
    items: int = Field(default=10, ge=0, le=30)  # top items in a chat message
    timeout: float = Field(default=30.0, gt=0)
    # email
    host: str | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    security: Literal["starttls", "ssl", "none"] = "starttls"
    username: str | None = None
    username_env: str | None = None
    password: SecretStr | None = None
    password_env: str | None = None
    sender: str | None = Field(default=None, alias="from")
    to: list[str] = Field(default_factory=list)
    # A CA bundle to trust besides the system's (a private mail server); verification stays on.
    ca_file: Path | None = None

    @model_validator(mode="after")
    def _complete(self) -> DeliveryTarget:
        if self.type == "email":
            missing = [name for name in ("host", "sender") if not getattr(self, name)]
            if missing or not self.to:
                raise ValueError(f"an email target needs host, from and to (missing: {', '.join(missing or ['to'])})")
        elif not (self.url or self.url_env):
            raise ValueError(f"a {self.type} target needs url or url_env")
        return self


class WorkerSettings(BaseModel):
    """The `[workers]` section: the Celery broker (Redis) that `collect --workers` / `run --workers`
    send their tasks to, and the GitHub budget the workers share per token."""

    model_config = ConfigDict(extra="forbid")

    broker: SecretStr | None = None  # redis://[:password@]host:port/db; it may carry a password
    concurrency: int = Field(default=4, ge=1, le=64)  # tasks at once in one `worker` process
    # Names of environment variables holding GitHub tokens (never the tokens): used in turn.
    github_tokens: list[str] = Field(default_factory=lambda: ["GITHUB_TOKEN"])
    # Requests per token per period, shared by every worker (GitHub's: 5,000 an hour, search 30 a minute).
    core_requests: int = Field(default=5000, ge=1)
    core_period: float = Field(default=3600.0, gt=0)
    search_requests: int = Field(default=30, ge=1)
    search_period: float = Field(default=60.0, gt=0)
    task_attempts: int = Field(default=5, ge=1, le=50)
    # A task not acknowledged this long after delivery (its worker died) goes to another worker;
    # it must exceed the longest task. Celery's hour left a killed worker's task waiting an hour;
    # a task is one repository or source of one window, well under this even with rate-limit waits.
    visibility_timeout: float = Field(default=900.0, gt=0)
    job_timeout: float = Field(default=6 * 3600.0, gt=0)  # how long collect --workers waits for its tasks


class Settings(BaseModel):
    """Everything a command needs; secrets are SecretStr so they never print."""

    profile: Profile
    db: str
    github_api_url: str = DEFAULT_GITHUB_API_URL
    github_token: SecretStr | None = None
    # GITHUB_TOKENS: several tokens for one process, used in turn (github_tokens.py)
    github_tokens: list[SecretStr] = Field(default_factory=list)
    discourse_api_key: SecretStr | None = None
    discourse_api_username: str | None = None
    slack_token: SecretStr | None = None
    slack_api_url: str = DEFAULT_SLACK_API_URL
    http: HttpSettings = Field(default_factory=HttpSettings)
    llm: LLMSettings | None = None
    workers: WorkerSettings = Field(default_factory=WorkerSettings)
    delivery: list[DeliveryTarget] = Field(default_factory=list)
    # Where the report folder is published (e.g. https://team.example.org/insight/): deliveries
    # link to the full report there.
    site_url: str | None = None

    @model_validator(mode="after")
    def _unique_targets(self) -> Settings:
        names = [target.name for target in self.delivery]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"delivery target names must be unique ({', '.join(twice)} given twice)")
        return self


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "insight.db"


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{what} {path} is not valid TOML: {exc}") from None


def available_profiles() -> list[str]:
    folder = resources.files("pytorch_insight") / "profiles"
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_profile(name_or_path: str) -> Profile:
    """A profile by shipped name (``pytorch``) or by path to a TOML file."""
    path = Path(name_or_path)
    if name_or_path.endswith(".toml") or path.exists():
        data = _read_toml(path, "profile")
    elif name_or_path in available_profiles():
        shipped = resources.files("pytorch_insight") / "profiles" / f"{name_or_path}.toml"
        data = tomllib.loads(shipped.read_text(encoding="utf-8"))
    else:
        known = ", ".join(available_profiles())
        raise ConfigError(
            f"unknown profile {name_or_path!r} (shipped profiles: {known}; or give a path to a .toml file)"
        )
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"profile {name_or_path!r} is invalid {describe_validation_error(exc)}") from None


def load_settings(
    *,
    profile: str | None = None,
    db: str | None = None,
    config_file: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Command line beats environment, environment beats the config file, the file beats defaults."""
    env = os.environ if env is None else env
    explicit = config_file is not None
    path = Path(config_file) if explicit else default_config_path()
    file_data: dict[str, Any] = _read_toml(path, "config file") if explicit or path.exists() else {}
    github = file_data.get("github", {})
    tokens = list(dict.fromkeys((env.get("GITHUB_TOKENS") or "").replace(",", " ").split()))
    token = env.get("GITHUB_TOKEN") or (tokens[0] if tokens else None)
    tokens = list(dict.fromkeys([token, *tokens])) if token else []
    secrets = {name: SecretStr(env[name]) if env.get(name) else None for name in ("DISCOURSE_API_KEY", "SLACK_TOKEN")}
    database = db or file_data.get("db") or str(default_db_path())
    if isinstance(database, str):  # anything else is reported by the validation below
        check_database_driver(database)
    try:
        return Settings(
            profile=load_profile(profile or file_data.get("profile") or DEFAULT_PROFILE),
            db=database,
            github_api_url=(env.get("GITHUB_API_URL") or github.get("api_url") or DEFAULT_GITHUB_API_URL).rstrip("/"),
            github_token=SecretStr(token) if token else None,
            github_tokens=[SecretStr(value) for value in tokens],
            discourse_api_key=secrets["DISCOURSE_API_KEY"],
            discourse_api_username=env.get("DISCOURSE_API_USERNAME") or None,
            slack_token=secrets["SLACK_TOKEN"],
            slack_api_url=(env.get("SLACK_API_URL") or DEFAULT_SLACK_API_URL).rstrip("/"),
            http=HttpSettings.model_validate(file_data.get("http", {})),
            llm=_llm_settings(file_data.get("llm") or {}, env),
            workers=_worker_settings(file_data.get("workers") or {}, env),
            delivery=file_data.get("delivery") or [],
            site_url=env.get("INSIGHT_SITE_URL") or file_data.get("site_url") or None,
        )
    except ValidationError as exc:
        raise ConfigError(f"config file {path} is invalid {describe_validation_error(exc)}") from None


def check_database_driver(db: str) -> None:
    """A database URL whose driver is missing fails with what to install, before any work, rather
    than as "No module named 'psycopg'" when the store opens. Paths and malformed URLs are the
    store's to judge."""
    if "://" not in db:
        return
    try:
        url = make_url(db)
        dialect = url.get_dialect()
    except (SQLAlchemyError, ValueError):  # ValueError: a port that is not a number
        return
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        backend, driver = url.get_backend_name(), url.get_driver_name()
        if backend != "postgresql":
            raise ConfigError(f"the {backend} driver {driver} is not installed ({exc})") from None
        if driver == "psycopg":
            raise ConfigError(f"PostgreSQL needs its driver, which is not installed: {POSTGRES_INSTALL}") from None
        raise ConfigError(
            f"the PostgreSQL driver {driver} is not installed: {POSTGRES_INSTALL} and use a postgresql+psycopg:// URL"
        ) from None


def _llm_settings(section: dict[str, Any], env: Mapping[str, str]) -> LLMSettings | None:
    """The `[llm]` config section completed by OPENAI_BASE_URL / OPENAI_API_KEY; None without a model."""
    if not section.get("model"):
        return None
    values = dict(section)
    values["base_url"] = env.get("OPENAI_BASE_URL") or values.get("base_url")
    key = env.get("OPENAI_API_KEY") or values.pop("api_key", None)
    values["api_key"] = SecretStr(key) if key else None
    return LLMSettings.model_validate(values)


def _worker_settings(section: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """The `[workers]` section (validated with the rest, so errors name `workers.<key>`);
    PYTORCH_INSIGHT_BROKER names the broker instead of the file."""
    values = dict(section)
    values["broker"] = env.get("PYTORCH_INSIGHT_BROKER") or values.get("broker") or None
    return values


def with_llm(
    settings: Settings,
    model: str | None,
    budget: int | None,
    concurrency: int | None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Settings with the command line's `--llm` options applied over the config file and environment."""
    if not model and settings.llm is None:
        return settings
    env = os.environ if env is None else env
    base = settings.llm or _llm_settings({"model": model}, env)
    assert base is not None
    update: dict[str, Any] = {"model": model or base.model}
    if budget is not None:
        update["budget_tokens"] = budget
    if concurrency is not None:
        update["concurrency"] = concurrency
    return settings.model_copy(update={"llm": base.model_copy(update=update)})
