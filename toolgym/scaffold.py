"""`toolgym new-domain NAME`: write a working domain to start from.

The files come from Jinja2 templates in toolgym/templates/scaffold/ (rendered with `[[ ]]`
delimiters, so the `{{ }}` of the domain's own templates pass through untouched). The result
passes `toolgym check NAME` as written: all ten kinds, each with a tiny example built on the
engine's helpers (`toolgym.envs.pieces`, `world_index`).
"""

from __future__ import annotations

import keyword
from pathlib import Path

import jinja2

from toolgym.errors import ToolgymError

TEMPLATES = Path(__file__).parent / "templates" / "scaffold"
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    undefined=jinja2.StrictUndefined,
    variable_start_string="[[",
    variable_end_string="]]",
    block_start_string="[%",
    block_end_string="%]",
    comment_start_string="[#",
    comment_end_string="#]",
    keep_trailing_newline=True,
    autoescape=False,
)


class ScaffoldError(ToolgymError):
    """The domain cannot be written (a bad or taken name, an existing folder)."""


def domain_files() -> list[str]:
    """The files of a domain folder, relative to it (templates without their .j2)."""
    return sorted(
        str(p.relative_to(TEMPLATES))[: -len(".j2")] for p in TEMPLATES.rglob("*.j2") if p.name != "pyproject.toml.j2"
    )


def check_name(name: str, taken: list[str] | None = None) -> None:
    """A domain name must be a lower-case Python identifier that no domain has yet."""
    if not name.isidentifier() or keyword.iskeyword(name) or name != name.lower():
        raise ScaffoldError(
            f"{name!r} is not a valid domain name: use a lower-case Python identifier "
            f"(letters, digits and underscores, not starting with a digit), such as 'library'"
        )
    if taken is None:
        import toolgym

        taken = toolgym.list_domains()
    if name in taken:
        raise ScaffoldError(f"a domain named {name!r} exists already; choose another name")


def scaffold(name: str, *, package_dir: Path | None = None, domains_dir: Path | None = None) -> Path:
    """Write the domain; returns the folder written.

    Without `package_dir` it goes to the built-in domains folder (`domains/NAME`, or
    `domains_dir/NAME`). With `package_dir` it is an installable package: `DIR/pyproject.toml`
    declaring the entry point `toolgym.domains: NAME`, and the domain in `DIR/toolgym_NAME/`.
    """
    check_name(name)
    values = {"name": name, "title": "".join(part.title() for part in name.split("_")), "package": f"toolgym_{name}"}
    if package_dir is not None:
        folder = Path(package_dir) / values["package"]
        _refuse_existing(Path(package_dir) / "pyproject.toml")
    else:
        if domains_dir is None:
            import toolgym.domains

            domains_dir = Path(toolgym.domains.__path__[0])
        folder = Path(domains_dir) / name
    _refuse_existing(folder)
    for relative in domain_files():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_ENV.get_template(f"{relative}.j2").render(**values))
    if package_dir is not None:
        (Path(package_dir) / "pyproject.toml").write_text(_ENV.get_template("pyproject.toml.j2").render(**values))
        return Path(package_dir)
    return folder


def _refuse_existing(path: Path) -> None:
    if path.exists():
        raise ScaffoldError(f"{path} exists already; remove it or choose another name or folder")
