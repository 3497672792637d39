"""Maps the top-level folders into the `toolgym` package.

Each folder below becomes a subpackage; its own subpackages are found by discovery, so a new
domain folder needs no packaging edit.
"""

from setuptools import find_packages, setup

MAPPED_FOLDERS = {
    "toolgym": "toolgym",
    "toolgym.envs": "envs",
    "toolgym.domains": "domains",
    "toolgym.generators": "generators",
    "toolgym.verifiers": "verifiers",
}

packages: list[str] = []
package_dir: dict[str, str] = {}
for package, folder in MAPPED_FOLDERS.items():
    packages.append(package)
    package_dir[package] = folder
    for sub in find_packages(folder):
        packages.append(f"{package}.{sub}")
        package_dir[f"{package}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"": ["*.j2", "*.yaml", "*.jinja", "templates/*", "templates/scaffold/*.j2", "templates/scaffold/*/*.j2"]},
    include_package_data=True,
)
