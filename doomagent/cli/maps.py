"""`doomagent maps`: every map of a WAD with its rooms, route, keys and exits, read from the WAD alone."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from doomagent.cli._common import _fail, app, out
from doomagent.errors import DoomAgentError


@app.command("maps")
def maps_cmd(
    wad: Annotated[str, typer.Argument(help="an IWAD: freedoom1.wad, freedoom2.wad (shipped) or a path")] = (
        "freedoom1.wad"
    ),
    maps: Annotated[
        str | None, typer.Option("--maps", help="only these maps: E1M1-E1M9, MAP01,MAP05 (default: all)")
    ] = None,
) -> None:
    """List every map of a WAD: rooms, route length, the plan's objectives in order, or why there is no plan."""
    from doomagent.env.geometry import MapGeometry, resolve_wad
    from doomagent.env.survey import MapSurvey, survey_map
    from doomagent.env.wad import Wad

    try:
        found = Wad(resolve_wad(Path(wad) if Path(wad).exists() else wad))
        names = select_maps(maps, found.map_names) if maps else list(found.map_names)
        out.print(
            f"{'map':<6} {'sectors':>7} {'rooms':>5} {'length':>6} {'largest':>7}  {'route rooms':<16} "
            "objectives (keys, doors, switches, triggers, teleports, in order) / why no plan"
        )
        routed = 0
        for name in names:
            s: MapSurvey = survey_map(MapGeometry(found, name))
            routed += s.routed
            length = f"{s.route_length:.0f}" if s.route_length is not None else "-"
            plan = " > ".join(s.objectives) + (" (climbs a step no lift shows)" if s.approximate else "")
            out.print(
                f"{s.name:<6} {s.sectors:>7} {s.rooms:>5} {length:>6} {s.largest_room_share:>7.0%}  "
                f"{' '.join(s.route_rooms) or '-':<16} {plan if s.routed else 'no plan: ' + (s.why_no_route or '')}"
            )
    except DoomAgentError as exc:
        _fail(exc)
    out.print(f"{found.path.name}: a progression plan to the exit on {routed} of {len(names)} maps")


def select_maps(spec: str, available: tuple[str, ...]) -> list[str]:
    """Return the maps `spec` names (`E1M1-E1M9`, `MAP01,MAP03`, ranges and lists mixed), in WAD order."""
    from doomagent.errors import ConfigError
    from doomagent.recipes import did_you_mean

    order = {name.upper(): i for i, name in enumerate(available)}
    chosen: set[str] = set()
    for part in (p.strip().upper() for p in spec.split(",") if p.strip()):
        first, _, last = part.partition("-")
        for end in (first, last or first):
            if end not in order:
                raise ConfigError(
                    f"map {end!r} is not in this WAD{did_you_mean(end, list(order))}",
                    hint=f"maps: {', '.join(available)}",
                )
        lo, hi = sorted((order[first], order[last or first]))
        chosen.update(available[lo : hi + 1])
    return [name for name in available if name in chosen]
