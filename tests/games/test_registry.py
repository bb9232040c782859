"""The one game registry: every game module registers its own names, and the command line, the agents and the web
page offer exactly the registry's names for each use (no other list exists)."""

from __future__ import annotations

import pytest

from pokerlab.errors import InvalidGameError
from pokerlab.games import registry
from pokerlab.games.poker import PRESETS, LimitPoker
from pokerlab.games.registry import PLAY, SOLVE, USES, WEB, game_entry, game_from_spec, game_names, get_game


def test_each_module_registers_its_games_for_their_uses():
    assert game_names(SOLVE) == ("rps", "rps2", *PRESETS)
    assert game_names(PLAY) == (*PRESETS, "two-round")
    assert game_names(WEB) == tuple(PRESETS)
    assert set(game_names()) == set(game_names(SOLVE)) | set(game_names(PLAY))
    for name in game_names():
        game = get_game(name)
        assert game.name == name and get_game(f" {name.upper()} ").spec() == game.spec()
    assert game_entry("two-round").warmup == "two-round"
    assert all(game_entry(name).warmup is None for name in game_names(SOLVE))


def test_solvable_games_compile_and_rebuild_from_their_spec():
    for name in game_names(SOLVE):
        game = get_game(name)
        assert registry.compiled(name) is registry.compiled(game)  # cached by spec: rebuildable
        assert game_from_spec(game.spec()).spec() == game.spec()


def test_a_name_outside_its_use_is_refused_listing_the_names_of_that_use():
    with pytest.raises(InvalidGameError, match="unknown game 'two-round' for the tree-form solvers .expected one "
                                               "of rps, rps2, kuhn"):
        registry.compiled("two-round")
    with pytest.raises(InvalidGameError, match=r"unknown game 'rps' for play \(expected one of kuhn, "):
        get_game("rps", PLAY)
    with pytest.raises(InvalidGameError, match=r"unknown game 'chess' \(expected one of rps, "):
        get_game("chess")


def test_registering_twice_or_for_an_unknown_use_is_a_programming_error(monkeypatch):
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_FAMILIES", dict(registry._FAMILIES))
    with pytest.raises(ValueError, match="registered twice"):
        registry.register_game("kuhn", lambda: LimitPoker(PRESETS["kuhn"]), "again", (SOLVE,))
    with pytest.raises(ValueError, match="unknown uses"):
        registry.register_game("new", lambda: LimitPoker(PRESETS["kuhn"]), "new", ("train",))
    with pytest.raises(ValueError, match="registered twice"):
        registry.register_family("limit_poker", (LimitPoker,), lambda spec: LimitPoker(PRESETS["kuhn"]))
    # a new game is one registration: every consumer offers it at once
    registry.register_game("kuhn-again", lambda: LimitPoker(PRESETS["kuhn"]), "Kuhn poker again", USES)
    assert "kuhn-again" in game_names(SOLVE) and "kuhn-again" in game_names(PLAY) and "kuhn-again" in game_names(WEB)


def test_the_consumers_offer_the_registry_names():
    from typer.testing import CliRunner

    from pokerlab.agents.match import game_by_name
    from pokerlab.cli.bots_cmd import PLAYABLE
    from pokerlab.cli.main import app
    from pokerlab.web.solving import GAMES

    assert game_names(WEB) == GAMES
    assert ", ".join(game_names(PLAY)) == PLAYABLE
    assert all(game_by_name(name).name == name for name in game_names(PLAY))
    help_text = " ".join(CliRunner().invoke(app, ["solve", "--help"], env={"COLUMNS": "300"}).output.split())
    assert f"Game: {', '.join(game_names(SOLVE))}." in help_text
