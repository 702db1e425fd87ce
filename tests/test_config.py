import re
import sys
from pathlib import Path

import pytest

from pytorch_insight.config import available_profiles, load_profile, load_settings
from pytorch_insight.errors import ConfigError


def test_the_pytorch_profile_ships_with_its_areas_readers_and_bots() -> None:
    profile = load_profile("pytorch")
    assert profile.github.repositories == ["pytorch/pytorch"]
    assert {"compiler", "distributed", "performance", "cuda", "mps", "rocm", "xpu", "rfc", "community", "core"} <= {
        area.id for area in profile.areas
    }
    assert {"generalist", "compiler", "distributed", "backend"} <= {reader.id for reader in profile.readers}
    assert profile.is_bot("pytorchmergebot") and profile.is_bot("someone[bot]") and not profile.is_bot("ezyang")
    assert "pytorch" in available_profiles()


def test_profile_by_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\ntitle = { zh = "我的", en = "Mine" }\n[github]\nrepositories = ["me/project"]\n')
    assert load_profile(str(path)).github.repositories == ["me/project"]


def test_unknown_and_invalid_profiles_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        load_profile("nope")
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "x"\n')
    with pytest.raises(ConfigError, match="invalid at title"):
        load_profile(str(broken))
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("name = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_profile(str(bad_toml))


@pytest.mark.parametrize("section, key", [("picks", "high_floor = 3"), ("red", "bar = 0.2")])
def test_a_model_setting_this_version_does_not_have_is_named_not_ignored(
    tmp_path: Path, section: str, key: str
) -> None:
    old = tmp_path / "old.toml"
    old.write_text(
        'name = "old"\ntitle = { zh = "旧", en = "Old" }\n[github]\nrepositories = ["me/project"]\n'
        f"[judgement.{section}]\n{key}\n"
    )
    with pytest.raises(ConfigError, match=rf"invalid at judgement\.{section}\.{key.split()[0]}"):
        load_profile(str(old))


def test_environment_beats_config_file_and_token_never_prints(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'db = "{tmp_path / "from-file.db"}"\n[github]\napi_url = "http://file.example"\n[http]\ntimeout = 7\n'
    )
    settings = load_settings(
        config_file=str(config), env={"GITHUB_API_URL": "http://127.0.0.1:9/", "GITHUB_TOKEN": "ghp_secret123"}
    )
    assert settings.github_api_url == "http://127.0.0.1:9"
    assert settings.db.endswith("from-file.db")
    assert settings.http.timeout == 7
    assert settings.github_token is not None and settings.github_token.get_secret_value() == "ghp_secret123"
    for text in (str(settings), repr(settings), settings.model_dump_json()):
        assert "ghp_secret123" not in text


def test_command_line_beats_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('db = "from-file.db"\nprofile = "nope"\n')
    settings = load_settings(config_file=str(config), db="cli.db", profile="pytorch", env={})
    assert (settings.db, settings.profile.name, settings.github_token) == ("cli.db", "pytorch", None)


def test_missing_explicit_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings(config_file=str(tmp_path / "absent.toml"), env={})


def test_a_bad_regular_expression_in_a_profile_is_reported_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        'name = "x"\ntitle = { zh = "x", en = "x" }\n[github]\nrepositories = ["o/r"]\n'
        '[[areas]]\nid = "a"\nname = { zh = "a", en = "a" }\npatterns = ["(unclosed"]\n'
    )
    with pytest.raises(ConfigError, match=r"invalid at areas\.0\.patterns: Value error, bad regular expression"):
        load_profile(str(path))


MINIMAL_PROFILE = 'name = "x"\ntitle = { zh = "x", en = "x" }\n[github]\nrepositories = ["o/r"]\n'


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("Pull Request resolved: (unclosed", "bad regular expression"),
        (r"Pull Request resolved: .*/pull/(\\d+)", "needs a (?P<number>...) group"),
    ],
)
def test_a_bad_landed_pattern_fails_at_load_naming_the_field(tmp_path: Path, pattern: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(MINIMAL_PROFILE + f"landed_pattern = '{pattern}'\n")
    with pytest.raises(ConfigError, match=r"invalid at github\.landed_pattern: Value error, ") as error:
        load_profile(str(path))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_good_landed_pattern_loads(tmp_path: Path) -> None:
    path = tmp_path / "good.toml"
    path.write_text(MINIMAL_PROFILE + "landed_pattern = 'Landed as #(?P<number>\\d+)'\n")
    assert load_profile(str(path)).github.landed_pattern == r"Landed as #(?P<number>\d+)"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://me:pw@127.0.0.1:9/insight", 'not installed: pip install "pytorch-insight[postgres]"'),
        ("postgresql://me:pw@127.0.0.1:9/insight", 'pip install "pytorch-insight[postgres]"'),
        ("postgresql+psycopg2://me:pw@127.0.0.1:9/insight", "use a postgresql+psycopg:// URL"),
    ],
)
def test_a_postgresql_url_without_its_driver_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, url: str, message: str
) -> None:
    for driver in ("psycopg", "psycopg2"):  # not installed, whatever this machine has
        monkeypatch.setitem(sys.modules, driver, None)
    with pytest.raises(ConfigError, match=re.escape(message)) as error:
        load_settings(db=url, env={})
    assert "No module named" not in str(error.value) and "pw" not in str(error.value)


def test_paths_and_sqlite_urls_need_no_driver_check(tmp_path: Path) -> None:
    assert load_settings(db=f"sqlite:///{tmp_path / 'x.db'}", env={}).db.startswith("sqlite:///")
    assert load_settings(db=str(tmp_path / "x.db"), env={}).db == str(tmp_path / "x.db")
