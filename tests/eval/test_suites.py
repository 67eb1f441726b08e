"""Suite files: the shipped ones load and name maps their WAD has; bad ones are clear errors."""

from __future__ import annotations

import pytest

from doomagent.cli.maps import select_maps
from doomagent.env.geometry import resolve_wad
from doomagent.env.wad import Wad
from doomagent.errors import ConfigError
from doomagent.eval.suites import load_suite, shipped_suites


def test_every_shipped_suite_names_maps_of_its_wad():
    names = {p.stem for p in shipped_suites()}
    assert names == {"freedoom1-e1", "freedoom1", "freedoom2"}
    sizes = {}
    for name in sorted(names):
        suite, folder = load_suite(name)
        assert suite.name == name and folder is None
        wad = Wad(resolve_wad(suite.wad_path(folder)))
        sizes[name] = len(select_maps(suite.maps, wad.map_names))
    assert sizes == {"freedoom1-e1": 9, "freedoom1": 36, "freedoom2": 32}


def test_a_suite_file_of_ones_own_and_bad_ones(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nwad: freedoom2.wad\nmaps: MAP01,MAP03\n")
    suite, folder = load_suite(str(mine))
    assert suite.maps == "MAP01,MAP03" and str(suite.wad_path(folder)) == "freedoom2.wad"
    relative = tmp_path / "rel.yaml"
    relative.write_text("name: rel\nwad: wads/my.wad\nmaps: MAP01\n")
    suite, folder = load_suite(str(relative))
    assert suite.wad_path(folder) == tmp_path / "wads" / "my.wad"
    with pytest.raises(ConfigError, match="did you mean 'freedoom1'"):
        load_suite("freedom1")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: b\nmap: E1M1\n")
    with pytest.raises(ConfigError, match="maps: Field required"):
        load_suite(str(broken))


def test_eval_refuses_a_bad_suite_before_playing(tmp_path):
    from typer.testing import CliRunner

    from doomagent.cli import app

    naive = ["eval", "naive", "--model", "test", "--vision-model", "test"]
    runner = CliRunner()
    both = runner.invoke(app, [*naive, "--suite", "freedoom1-e1", "--maps", "E1M1", "--out", str(tmp_path / "a")])
    assert both.exit_code == 2 and "give --suite or --maps, not both" in both.output
    unknown = runner.invoke(app, [*naive, "--suite", "nowhere", "--out", str(tmp_path / "b")])
    assert unknown.exit_code == 2 and "suite 'nowhere' is neither a shipped suite nor a file" in unknown.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
