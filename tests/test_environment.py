"""environment.yml (conda) and pyproject.toml (pip) must describe the same environment."""

from __future__ import annotations

import re
import tomllib

import yaml

from conftest import REPO

#: What environment.yml holds beyond pyproject.toml: Node.js, whose npm fetches the SQL console's files.
NOT_PYTHON_PACKAGES = {"nodejs"}


def _normalise(requirement: str) -> tuple[str, str]:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*?)\s*", requirement)
    assert match, f"cannot read requirement {requirement!r}"
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    specifier = ",".join(sorted(part.strip() for part in match.group(2).split(",") if part.strip()))
    return name, specifier


def _pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    own_name = _normalise(project["name"])[0]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    pairs = [_normalise(item) for item in requirements]
    return {name: spec for name, spec in pairs if name != own_name}


def _environment_requirements() -> dict[str, str]:
    environment = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    entries: list[str] = []
    for item in environment["dependencies"]:
        if isinstance(item, dict):
            entries += [line for line in item["pip"] if not line.startswith("-")]
        else:
            entries.append(item)
    pairs = [_normalise(item) for item in entries]
    return {name: spec for name, spec in pairs if name not in {"python", "pip", *NOT_PYTHON_PACKAGES}}


def test_environment_yml_matches_pyproject() -> None:
    from_pip, from_conda = _pyproject_requirements(), _environment_requirements()
    assert from_pip == from_conda, (
        f"only in pyproject.toml: {sorted(set(from_pip.items()) - set(from_conda.items()))}; "
        f"only in environment.yml: {sorted(set(from_conda.items()) - set(from_pip.items()))}"
    )


def test_environment_brings_node_for_the_sql_console() -> None:
    environment = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    names = {_normalise(item)[0] for item in environment["dependencies"] if isinstance(item, str)}
    assert names >= NOT_PYTHON_PACKAGES, "conda users need Node.js (npm) for `make vendor`"


def test_environment_installs_the_project_itself() -> None:
    environment = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    pip_section = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    assert "-e ." in pip_section


def test_every_file_names_the_same_python() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    minimum = project["project"]["requires-python"].removeprefix(">=")
    environment = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    assert f"python>={minimum}" in environment["dependencies"]
    assert project["tool"]["ruff"]["target-version"] == "py" + minimum.replace(".", "")
    assert f"Python ≥ {minimum}" in (REPO / "README.md").read_text(encoding="utf-8")
    # the version make checks before it creates .venv
    assert re.search(rf"^MIN_PYTHON := {re.escape(minimum)}$", (REPO / "Makefile").read_text(encoding="utf-8"), re.M)
    assert f"Python {minimum} or later" in (REPO / "book" / "teaching.md").read_text(encoding="utf-8")
