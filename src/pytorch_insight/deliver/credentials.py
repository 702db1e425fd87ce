"""A target's secrets, read from the environment variables its config names (or given inline),
when it is about to be sent to. Every value read is registered with `redact`, so no output, log,
note or stored row can carry it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import SecretStr

from pytorch_insight.config import DeliveryTarget
from pytorch_insight.errors import ConfigError
from pytorch_insight.redact import register_secret

TOKEN_PART = re.compile(r"[/?&=#]")
TOKEN_LENGTH = 16


@dataclass(frozen=True)
class Credentials:
    url: str | None
    secret: str | None
    username: str | None
    password: str | None

    def values(self) -> list[str]:
        return [value for value in (self.url, self.secret, self.password) if value]


def credentials(target: DeliveryTarget, env: Mapping[str, str]) -> Credentials:
    """The target's URL, signing secret and login; ConfigError naming the variable that is unset."""
    found = Credentials(
        url=_read(target.url, target.url_env, env),
        secret=_read(target.secret, target.secret_env, env),
        username=_read(target.username, target.username_env, env),
        password=_read(target.password, target.password_env, env),
    )
    for value in (found.secret, found.password):
        register_secret(value)
    if found.url:
        # A webhook URL's token is a segment of its path or a value of its query: each is as secret
        # as the whole URL, while its scheme, host and fixed path ("robot/send") are public.
        for part in TOKEN_PART.split(found.url.partition("://")[2].partition("/")[2]):
            if len(part) >= TOKEN_LENGTH:
                register_secret(part)
    return found


def _read(inline: str | SecretStr | None, variable: str | None, env: Mapping[str, str]) -> str | None:
    if variable:
        value = env.get(variable)
        if not value:
            raise ConfigError(f"environment variable {variable} is not set")
        return value
    if isinstance(inline, SecretStr):
        return inline.get_secret_value() or None
    return inline or None
