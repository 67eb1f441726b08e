"""Re-render a trial from its demo recording, with no model call: GIF or MP4, captioned from the step log."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from doomagent import rundir
from doomagent.env import DoomEnv, EnvConfig
from doomagent.errors import ConfigError
from doomagent.rundir.log import read_jsonl


def _captions(trial: Path) -> dict[int, str]:
    captions: dict[int, str] = {}
    steps = trial / rundir.STEPS
    if steps.exists():
        for s in read_jsonl(steps):  # a last line cut short by a crash is left out, as everywhere
            if "frame" not in s or "action" not in s:
                continue
            reason = f": {s['reason']}" if s.get("reason") else ""
            captions[int(s["frame"])] = f"{s['frame']:>5}  {s.get('room') or '-'}  {s['action']}{reason}"
    return captions


def _caption(frame: np.ndarray, text: str) -> np.ndarray:
    from PIL import Image, ImageDraw

    shot = Image.fromarray(frame)
    img = Image.new("RGB", (shot.width, shot.height + 16))  # a caption band below, the HUD stays visible
    img.paste(shot)
    ImageDraw.Draw(img).text((4, shot.height + 2), text[:100], fill=(255, 255, 0))
    return np.asarray(img)


def replay_trial(trial: Path, out: Path, *, every: int = 2, captions: bool = True, scale: float = 0.5) -> int:
    """Write the trial's replay to `out` (.gif or .mp4); return the number of frames written."""
    demo = trial / rundir.DEMO
    summary_file = trial / rundir.SUMMARY
    if not demo.is_file() or not summary_file.is_file():
        raise ConfigError(
            f"{trial} is not a trial folder (it needs episode.lmp and summary.json)",
            hint="point at a trial-NNN folder of a run or eval",
        )
    suffix = out.suffix.lower()
    if suffix not in (".webp", ".gif", ".mp4"):
        raise ConfigError(f"cannot write a replay to {out}", hint="end --out with .webp, .gif or .mp4")
    env_data = json.loads(summary_file.read_text()).get("env") or {}
    config = EnvConfig.model_validate({**env_data, "max_frames": None})
    texts = _captions(trial) if captions else {}
    frames: list[np.ndarray] = []
    caption = ""
    env = DoomEnv(config)
    try:
        for obs in env.replay(demo, every=every):
            caption = texts.get(obs.frame, caption)
            image = obs.screen
            if scale != 1.0:
                from PIL import Image

                size = (max(1, int(image.shape[1] * scale)), max(1, int(image.shape[0] * scale)))
                image = np.asarray(Image.fromarray(image).resize(size))
            frames.append(_caption(image, caption) if captions and caption else image)
    finally:
        env.close()
    if not frames:
        raise ConfigError(f"the demo in {trial} replayed no frames")
    out.parent.mkdir(parents=True, exist_ok=True)
    fps = 35 / every
    if suffix in (".gif", ".webp"):
        _write_animation(out, frames, duration=int(1000 / fps))
    else:
        try:
            import imageio_ffmpeg
        except ImportError as exc:
            raise ConfigError(
                "writing MP4 needs imageio-ffmpeg", hint="pip install 'doomagent[video]', or write a .gif"
            ) from exc
        h, w = frames[0].shape[:2]
        writer = imageio_ffmpeg.write_frames(str(out), (w, h), fps=fps, macro_block_size=1)
        writer.send(None)
        for f in frames:
            writer.send(np.ascontiguousarray(f))
        writer.close()
    return len(frames)


def _write_animation(out: Path, frames: list[np.ndarray], *, duration: int) -> None:
    """Write an animated WebP (lossy: about a sixth of a GIF's size) or a GIF with one palette for all frames."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    if out.suffix.lower() == ".webp":
        images[0].save(out, save_all=True, append_images=images[1:], duration=duration, loop=0, quality=70, method=4)
        return
    # Doom draws from a 256-colour palette: one palette, taken from frames across the trial, fits every frame.
    step = max(1, len(frames) // 16)
    mosaic = Image.fromarray(np.concatenate(frames[::step][:16], axis=0))
    palette = mosaic.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    shared = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    shared[0].save(out, save_all=True, append_images=shared[1:], duration=duration, loop=0, disposal=1)
