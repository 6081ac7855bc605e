"""Train the card cell network (PyTorch, training only) on the *tuning* split.

    pip install -e '.[train]'          # torch: needed here, never at run time
    python benchmarks/card_train.py --photos 1200 --val 100 --minutes 40

The first ``photos - val`` tuning photos train a small convolutional network on
each cell's patch (:func:`piecebridge.vision.card_cells.cell_patches`) plus the
grid-level shading statistics (:func:`~piecebridge.vision.card_cells.cell_maps`);
the last ``val`` photos (still tuning split, never ``test`` or ``print``) choose
the confidence threshold below which a cell is reported ``unknown``. The held-out
splits are only read by ``benchmarks/card_accuracy.py``.

Every training patch is augmented so the network learns pencils and cameras the
renderer does not make: stroke width (grey dilation/erosion), rotation within
+-10 degrees (+-5 for an x or a plus, so none leans past halfway to the other),
scale +-10 %, offsets of a few pixels (lattice error), left-right mirror (keeps
every class), blur, contrast and noise. A mark label of -100 is left out of the
mark loss (the shading loss still counts the cell). One process, one thread (the
machine is shared); training stops at ``--minutes`` with the learning rate
annealed to that budget.

Writes ``vision/card_cells_model.npz``: the weights (batch norm folded into the
convolutions), read by the numpy inference in ``card_cells.CellNet``.

Several runs (other seeds) make an ensemble, their probabilities averaged; the
threshold is chosen again for it on the validation photos, read exactly as the
reader reads them (numpy, the photo's own maps, mirrored too):

    python benchmarks/card_train.py --combine out/card/run2.npz out/card/run3.npz

``--specialist`` trains instead a network that reads the full-resolution maps (32 pixels
a cell, :mod:`card_specialist`) on the cells the shipped model may read wrong: tried at the
tenth session, not shipped (``benchmarks/results/card.md``).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import CACHE, rects_of, style_photo_path
from card_specialist import SPEC_CHANNELS, SPEC_CONTEXT, SPEC_PATCH_PX, Specialist
from piecebridge.vision import card as vc
from piecebridge.vision import card_cells as cc

from piecebridge.synth.card import RENDER_VERSION

CROP = 128  # full-resolution crop around a cell, room for rotation and shifts
#: sampled at full resolution, then 2x2 averaged: the patch and its context
OUT_FULL = 2 * (cc.PATCH_PX + 2 * cc.NET_CONTEXT)
#: what the full-resolution specialist reads (``--specialist``): its patch and context
SPEC_SIDE = SPEC_PATCH_PX + 2 * SPEC_CONTEXT


#: uint8 steps per unit of each input plane in the training caches (:func:`grid_data`):
#: darkness 0..1, the stroke planes 0..1.5
QUANT = (255, 170, 170, 170)


def tune_grids(indices, size, style: str = "classic", planes: int = 2):
    """``(photo index, maps, scalars, mark, shaded)`` of every grid the reader rectifies
    on the given tuning photos (a photo it cannot read is said and skipped); ``planes``
    input planes (:func:`~piecebridge.vision.card_cells.cell_maps`)."""
    for i in indices:
        item = rects_of(style_photo_path("tune", i, size, style))
        if "error" in item:
            print(f"  skipped {style} tune {i}: {item['error']}")
            continue
        for rect, mk, sh in zip(item["rects"], item["mark"], item["shaded"], strict=True):
            yield (i, *cc.cell_maps(rect, planes=planes), mk, sh)


def grid_data(
    indices, size, style: str = "classic", name: str | None = None, planes: int = 2
) -> dict:
    """Maps (uint8, :data:`QUANT`), scalars and labels of every grid of the given tuning
    photos, cached as ``name`` (by default the classic renderer's photos ``first_last``,
    ``_p3`` with three planes)."""
    name = name or (
        f"net_tune_{indices[0]}_{indices[-1]}_{size[0]}x{size[1]}_{_versions()}"
        + _planes_tag(planes)
    )
    cache = CACHE / f"{name}.npz"
    if cache.exists():
        d = np.load(cache)
        return {k: d[k] for k in d}
    more = _more_planes_cache(cache, planes)
    if more is not None:  # the first planes of a cache with more: the same numbers
        with np.load(more) as d:
            out = {k: d[k] for k in d}
        out["maps"] = np.ascontiguousarray(out["maps"][:, :planes])
        return out
    maps, scal, mark, shaded = [], [], [], []
    t0, last = time.time(), None
    steps = np.float32(QUANT[:planes])[:, None, None]
    for i, mp, sc, mk, sh in tune_grids(indices, size, style, planes):
        q = (mp * steps).round().clip(0, 255).astype(np.uint8)
        maps.append(q)
        scal.append(sc)
        mark.append(mk)
        shaded.append(sh)
        if i != last and (i - indices[0]) % 200 == 0:
            print(f"  maps of photo {i} ({time.time() - t0:.0f}s)", flush=True)
        last = i
    out = {
        "maps": np.stack(maps),
        "scalars": np.stack(scal).astype(np.float32),
        "mark": np.stack(mark).astype(np.int64),
        "shaded": np.stack(shaded).astype(np.float32),
    }
    np.savez(cache, **out)
    return out


def _more_planes_cache(cache: Path, planes: int) -> Path | None:
    """An existing training cache of the same grids as ``cache`` with more input planes
    (``_p4`` for a ``_p3`` one), whose first ``planes`` planes are these grids' maps, or
    ``None``."""
    stem = re.sub(r"_p\d$", "", cache.stem)
    for more in range(planes + 1, max(cc.KNOWN_PLANES) + 1):
        other = cache.with_name(f"{stem}{_planes_tag(more)}.npz")
        if other.exists():
            return other
    return None


def r1turned_data(n_photos: int) -> dict:
    """Training grids of renderer 1's tuning photos ``0..n_photos-1`` (the photos v7-v10
    learned from, ``out/card/tune_2000x1500``) cut by today's finder and lattice
    (:func:`card_data.rects_of`, ``GRID_VERSION``), with the x and plus marks renderer 2
    turns back left out of the mark loss (``card_turned.turned_cells``): what
    ``benchmarks/card_turned.py`` wrote from the old lattice's grids, made anew. Cached
    as ``net_tune_0_<n-1>_2000x1500_r1turned_g<GRID_VERSION>.npz``."""
    from card_turned import OLD, labelled_grids

    cache = CACHE / f"net_tune_0_{n_photos - 1}_2000x1500_r1turned_g{vc.GRID_VERSION}.npz"
    if cache.exists():
        with np.load(cache) as d:
            return {k: d[k] for k in d}
    maps, scal, mark, shaded = [], [], [], []
    t0, left_out = time.time(), 0
    for i in range(n_photos):
        item = rects_of(OLD / f"tune_{i:05d}.jpg")
        if "error" in item:
            print(f"  skipped tune {i}: {item['error']}")
            continue
        rows, n = labelled_grids(i, item["rects"], item["mark"], item["shaded"])
        left_out += n
        for m, sc, mk, sh in rows:
            maps.append(m)
            scal.append(sc)
            mark.append(mk)
            shaded.append(sh)
        if i % 100 == 0:
            print(f"  r1 photo {i}: {left_out} left out ({time.time() - t0:.0f}s)", flush=True)
    out = {
        "maps": np.stack(maps),
        "scalars": np.stack(scal).astype(np.float32),
        "mark": np.stack(mark).astype(np.int64),
        "shaded": np.stack(shaded).astype(np.float32),
    }
    tmp = cache.with_name(f"{cache.stem}.tmp.npz")
    np.savez(tmp, **out)
    tmp.replace(cache)
    return out


#: alt-style tuning photos below this only choose thresholds and measure (never trained on)
ALT_TRAIN_FIRST = 60


def alt_indices(spans: list[str]) -> list[int]:
    """Alt-style tuning photos from spans like ``60-199``; none below ``ALT_TRAIN_FIRST``.

    >>> alt_indices(["60-62", "300-301"])
    [60, 61, 62, 300, 301]
    """
    out = []
    for span in spans:
        lo, _, hi = span.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    if out and min(out) < ALT_TRAIN_FIRST:
        raise SystemExit(f"alt tune photos below {ALT_TRAIN_FIRST} are for choosing only")
    return sorted(set(out))


def alt_grid_data(spans: list[str], size, planes: int = 2) -> dict:
    """:func:`grid_data` of the alt-style tuning photos in ``spans`` (:func:`alt_indices`;
    :mod:`piecebridge.synth.card_styles`: other pens and pencils, other shapes and
    shadings, other printing), rendered and read on first use like the classic ones.

    The alt style draws on the classic renderer (its contents and its camera), so the
    cache name carries ``RENDER_VERSION`` and the reader's ``GRID_VERSION`` as the classic
    one does: a newer renderer's or lattice's grids are other grids and are made anew.
    """
    name = alt_cache_name(spans, size) + _planes_tag(planes)
    return grid_data(alt_indices(spans), size, "alt", name, planes)


def _planes_tag(planes: int) -> str:
    """Cache name suffix of training grids with ``planes`` input planes (none for two,
    the caches made before a third plane existed).

    >>> _planes_tag(2), _planes_tag(3)
    ('', '_p3')
    """
    return "" if planes == 2 else f"_p{planes}"


#: longest spans part of an alt training cache's name written out (:func:`alt_cache_name`)
MAX_SPANS_TAG = 80


def alt_cache_name(spans: list[str], size) -> str:
    """Name of the training cache of the alt-style tuning photos ``spans`` (see
    :func:`alt_grid_data`), with the renderer's and the grids' versions.

    >>> alt_cache_name(["60-202", "300-372"], (2000, 1500)) == (
    ...     f"net_tune_alt_60-202_300-372_2000x1500_r{RENDER_VERSION}_g{vc.GRID_VERSION}"
    ... )
    True

    Many spans (single photos chosen by their truth, e.g. the pen-shaded cards) are named
    by their count, first, last and a digest, since a file name holds at most 255 bytes:

    >>> alt_cache_name([str(i) for i in range(1000, 1100, 2)], (2000, 1500))[:41]
    'net_tune_alt_50spans_1000-1098_62b9ec7093'
    """
    spans_tag = "_".join(spans)
    if len(spans_tag) > MAX_SPANS_TAG:
        digest = hashlib.sha1(spans_tag.encode()).hexdigest()[:10]
        last = spans[-1].rpartition("-")[2]
        spans_tag = f"{len(spans)}spans_{spans[0].partition('-')[0]}-{last}_{digest}"
    return f"net_tune_alt_{spans_tag}_{size[0]}x{size[1]}_{_versions()}"


def _versions() -> str:
    """The renderer's and the reader's grid versions, as training cache names carry them."""
    return f"r{RENDER_VERSION}_g{vc.GRID_VERSION}"


def dequantise(maps_u8):
    """uint8 maps (B, C, H, W) back to the float ranges of :func:`cc.cell_maps`."""
    import torch

    c = maps_u8.shape[1]
    scale = torch.tensor([1 / q for q in QUANT[:c]]).view(1, c, 1, 1)
    return maps_u8.float() * scale


def build_net(n_scalars: int, planes: int = 2):
    """The cell network :class:`~piecebridge.vision.card_cells.CellNet` reads (half
    resolution: three convolutions over a cell's patch and its context)."""
    return _conv_net(n_scalars, planes, cc.NET_CHANNELS, cc.PATCH_PX, cc.NET_CONTEXT)


def build_specialist(n_scalars: int, planes: int = 3):
    """The full-resolution specialist (:class:`card_specialist.Specialist`):
    four convolutions over a cell's ``SPEC_SIDE`` full-resolution patch."""
    return _conv_net(n_scalars, planes, SPEC_CHANNELS, SPEC_PATCH_PX, SPEC_CONTEXT)


def _conv_net(n_scalars: int, planes: int, channels, patch: int, context: int):
    """3x3 convolutions (batch norm, ReLU, 2x2 max-pool) of widths ``channels`` over a
    ``patch`` square and ``context`` pixels around it, the features over the patch kept,
    then one hidden layer with the cell's scalars, and the mark and shading heads."""
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            chans = (planes, *channels)
            layers = []
            for a, b in itertools.pairwise(chans):
                layers += [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU()]
                layers.append(nn.MaxPool2d(2))
            self.conv = nn.Sequential(*layers)
            self.k = 2 ** len(channels)
            side = patch // self.k
            self.crop = slice(context // self.k, context // self.k + side)
            self.fc1 = nn.Linear(chans[-1] * side * side + n_scalars, cc.NET_HIDDEN)
            self.drop = nn.Dropout(0.2)
            self.fc2 = nn.Linear(cc.NET_HIDDEN, len(cc.MARK_CLASSES) + 1)

        def forward(self, patches, scalars):
            h = self.conv(patches)[:, :, self.crop, self.crop].flatten(1)
            h = torch.relu(self.fc1(torch.cat([h, scalars], 1)))
            return self.fc2(self.drop(h))

    return Net()


def net_from_member(member: dict, planes: int = 2):
    """A training network (:func:`build_net`) holding the weights of a network as the reader
    stores it (batch norm folded into the convolutions): its batch norms the identity, to
    be kept frozen (:func:`freeze_batch_norm`), so it starts as exactly that network. Input
    planes it did not read get zero kernels and scalars it did not read zero weights: they
    start unheard. The trained ``.pt`` files are scratch; a model file is what stays.

    Returns ``(net, scalar_mean, scalar_scale)``: the member's own input normalisation."""
    import torch

    stored = np.asarray(member["conv0_w"]).shape[1]
    if planes < stored:
        raise SystemExit(f"--planes {planes}: the network to continue reads {stored} planes")
    net = build_net(cc.N_SCALARS, planes)
    convs = [m for m in net.conv if m.__class__.__name__ == "Conv2d"]
    bns = [m for m in net.conv if m.__class__.__name__ == "BatchNorm2d"]
    with torch.no_grad():
        for i, (conv, bn) in enumerate(zip(convs, bns, strict=True)):
            w = torch.from_numpy(np.asarray(member[f"conv{i}_w"], np.float32))
            conv.weight.zero_()
            conv.weight[:, : w.shape[1]] = w
            conv.bias.copy_(torch.from_numpy(np.asarray(member[f"conv{i}_b"], np.float32)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)  # the identity: (x - 0) / sqrt(1) * 1 + 0
            bn.weight.fill_(1)
            bn.bias.zero_()
        w = torch.from_numpy(np.asarray(member["fc1_w"], np.float32)).T
        net.fc1.weight.zero_()
        net.fc1.weight[:, : w.shape[1]] = w
        net.fc1.bias.copy_(torch.from_numpy(np.asarray(member["fc1_b"], np.float32)))
        net.fc2.weight.copy_(torch.from_numpy(np.asarray(member["fc2_w"], np.float32)).T)
        net.fc2.bias.copy_(torch.from_numpy(np.asarray(member["fc2_b"], np.float32)))
    n = len(member["scalar_mean"])
    mean = np.zeros(cc.N_SCALARS, np.float32)
    scale = np.ones(cc.N_SCALARS, np.float32)
    mean[:n], scale[:n] = member["scalar_mean"], member["scalar_scale"]
    return net, mean, scale


def load_init(net, state: dict, name: str = "--init") -> None:
    """Load a previous run's weights ``state`` (its ``.pt``) into ``net`` to continue it.

    Inputs added since that run start unheard, so the run starts from exactly the network
    it continues: scalars appended since get zero weights in the first dense layer, input
    planes it did not read zero kernels (as :func:`net_from_member` does). A run that read
    more planes than ``net`` cannot continue: a one-line ``SystemExit``.
    """
    import torch

    w = state["fc1.weight"]
    extra = net.fc1.weight.shape[1] - w.shape[1]
    if extra > 0:
        state["fc1.weight"] = torch.cat([w, torch.zeros(w.shape[0], extra)], 1)
    w = state["conv.0.weight"]
    planes = net.conv[0].weight.shape[1]
    if w.shape[1] > planes:
        raise SystemExit(f"--planes {planes}: {name} reads {w.shape[1]} planes")
    if w.shape[1] < planes:
        pad = torch.zeros(w.shape[0], planes - w.shape[1], *w.shape[2:])
        state["conv.0.weight"] = torch.cat([w, pad], 1)
    net.load_state_dict(state)


def freeze_batch_norm(net) -> None:
    """Batch norms in eval mode (their running statistics used and kept): a network made
    by :func:`net_from_member` continues as it was instead of renormalising each batch."""
    for m in net.conv:
        if m.__class__.__name__ == "BatchNorm2d":
            m.eval()


def _max3(x):
    """3x3 grey dilation (max of shifted views: far faster than a stride-1 max-pool)."""
    import torch.nn.functional as F

    p = F.pad(x, (1, 1, 1, 1), mode="replicate")
    h, w = x.shape[-2:]
    rows = p[..., :, 0:w].maximum(p[..., :, 1 : w + 1]).maximum(p[..., :, 2 : w + 2])
    return rows[..., 0:h, :].maximum(rows[..., 1 : h + 1, :]).maximum(rows[..., 2 : h + 2, :])


def _blur(x, sigma, radius: int = 2):
    """Separable Gaussian blur (``2 * radius + 1`` taps) as a weighted sum of shifted views."""
    import torch.nn.functional as F

    n = 2 * radius + 1
    g = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    g /= g.sum()
    h, w = x.shape[-2:]
    p = F.pad(x, (radius, radius, 0, 0), mode="replicate")
    x = sum(float(g[k]) * p[..., :, k : k + w] for k in range(n))
    p = F.pad(x, (0, 0, radius, radius), mode="replicate")
    return sum(float(g[k]) * p[..., k : k + h, :] for k in range(n))


#: rotation augmentation (degrees) of an x or a plus: the renderer keeps their strokes
#: within 15 degrees of their class (``synth.card.MAX_LEAN_DEG``, about 17 in pixels), so
#: turning them by 5 more keeps every training label short of the 22.5-degree midpoint
CROSS_TURN_DEG = 5.0
CROSS_CLASSES = [cc.MARK_CLASSES.index(m) for m in ("x", "plus")]


#: ``augment(sharpen=...)``: unsharp masking, ``x + amount * (x - blur(x, sigma))``, as a
#: phone's image pipeline sharpens every photo (amount and sigma drawn from these ranges)
SHARPEN_AMOUNT = (0.3, 1.0)
SHARPEN_SIGMA = (0.6, 1.2)


def augment(
    crops,
    rng,
    train: bool,
    flip: bool = False,
    marks=None,
    turns: float = 0.0,
    sharpen: float = 0.0,
    full: bool = False,
):
    """Full-resolution crops (B, C, CROP, CROP) -> patches (B, C, P, P), augmented
    (``train``) or as read (``flip``: mirrored left to right, as ``CellNet`` also reads).
    ``marks`` (the cells' mark classes) limits the small turn of an x or a plus. A share
    ``turns`` of the patches is also turned a quarter, half or three quarters: every
    class keeps its name under a quarter turn (a triangle points the way of travel in
    *Rotator*), and so do the per-cell scalars. A share ``sharpen`` of the patches that
    are not blurred is sharpened instead (:data:`SHARPEN_AMOUNT`): phones sharpen their
    photos, and crisp stroke edges must not read as shading (blur alone taught that
    soft edges are the rule). ``full``: the patches at full resolution, as the specialist
    reads them (``SPEC_SIDE``; blur and sharpening measured in the same half-resolution
    pixels, so twice as wide)."""
    import torch
    import torch.nn.functional as F

    b, c = crops.shape[:2]
    x = crops
    if train:
        # stroke width: thicker or thinner pencil (also the printed lines, harmlessly)
        u = rng.random(b)
        x = x.clone()
        for sel, sign in ((u < 0.15, 1.0), (u > 0.85, -1.0)):
            idx = torch.from_numpy(np.flatnonzero(sel))
            if len(idx):
                x[idx] = sign * _max3(sign * x[idx])
        ang = np.radians(rng.uniform(-10, 10, b))
        if marks is not None:  # the same draws, scaled down for the four-armed marks
            ang = np.where(np.isin(marks, CROSS_CLASSES), ang * CROSS_TURN_DEG / 10, ang)
        ang = ang + np.where(rng.random(b) < turns, rng.integers(1, 4, b), 0) * (np.pi / 2)
        scale = rng.uniform(0.9, 1.1, b)
        shift = rng.uniform(-3.5, 3.5, (b, 2)) / (CROP / 2)
        mirror = np.where(rng.random(b) < 0.5, -1.0, 1.0)
    else:
        ang = np.zeros(b)
        scale = np.ones(b)
        shift = np.zeros((b, 2))
        mirror = np.full(b, -1.0 if flip else 1.0)
    out_px = SPEC_SIDE if full else OUT_FULL
    px = 2 if full else 1  # pixels of the patch per half-resolution pixel
    k = out_px / CROP
    cos, sin = np.cos(ang) * scale * k, np.sin(ang) * scale * k
    theta = np.zeros((b, 2, 3))
    theta[:, 0, 0] = cos * mirror
    theta[:, 0, 1] = -sin
    theta[:, 1, 0] = sin * mirror
    theta[:, 1, 1] = cos
    theta[:, :, 2] = shift
    grid = F.affine_grid(
        torch.from_numpy(theta).float(), (b, c, out_px, out_px), align_corners=False
    )
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if not full:
        x = F.avg_pool2d(x, 2)
    if train:
        # blur (out of focus, motion), contrast (pencil pressure, exposure), noise
        u = rng.random(b)
        idx = torch.from_numpy(np.flatnonzero(u < 0.3))
        if len(idx):
            x[idx] = _blur(x[idx], px * rng.uniform(0.4, 1.0), 2 * px)
        idx = torch.from_numpy(np.flatnonzero(u >= 1 - sharpen))  # never both
        if len(idx):
            amount = torch.from_numpy(rng.uniform(*SHARPEN_AMOUNT, len(idx))).float()
            edges = x[idx] - _blur(x[idx], px * rng.uniform(*SHARPEN_SIGMA), 2 * px)
            x[idx] = x[idx] + amount.view(-1, 1, 1, 1) * edges
        gain = torch.from_numpy(rng.uniform(0.75, 1.25, (b, 2))).float()
        # the local-contrast plane is the stroke plane's own: it takes the same gain
        gain = gain[:, [0, *([1] * (c - 1))]].view(b, c, 1, 1)
        x = x * gain
        noise = torch.from_numpy(rng.uniform(0, 0.03, b)).float().view(b, 1, 1, 1)
        x = x + noise * torch.randn_like(x)
        x = torch.stack([x[:, 0].clamp(0, 1), *(x[:, k].clamp(0, 1.5) for k in range(1, c))], 1)
    return x


#: how much fainter :func:`faint_strokes_on_shading` makes a shaded cell's strokes
FAINT_STROKES = (0.45, 0.9)


def faint_strokes_on_shading(x, shaded: np.ndarray, share: float, rng):
    """Patches ``x`` (B, C, P, P) with the stroke map (channel 1) of a share of the shaded
    cells' patches scaled down (``FAINT_STROKES``), and with it the local contrast (channel
    2, when there is one: it is linear in the stroke map, so it fades alike). The stroke
    map is normalised by the grid's darkest strokes, so a mark drawn on dark shading, a few
    strokes darker than the fill, arrives faint: the reader's commonest miss on tune, where
    reading the stroke map twice as strong found those marks."""
    import torch

    pick = np.flatnonzero(shaded & (rng.random(len(shaded)) < share))
    if len(pick):
        x = x.clone()
        k = torch.from_numpy(rng.uniform(*FAINT_STROKES, len(pick))).float().view(-1, 1, 1)
        x[torch.from_numpy(pick), 1:] *= k.unsqueeze(1)
    return x


def _batch(train: dict, g, cell, rng, a, full: bool = False):
    """A training batch: the patches of cells ``cell`` of grids ``g``, augmented as the run's
    options ``a`` say (turns, sharpening); ``full`` as in :func:`augment`."""
    return augment(
        crops_of(train["maps"], g, cell),
        rng,
        train=True,
        marks=train["mark"][g, cell],
        turns=a.turns,
        sharpen=a.sharpen,
        full=full,
    )


def crops_of(maps, g, cell):
    """Full-resolution crops around cells ``cell`` (0..99) of grids ``g``."""
    import torch

    m = round(cc.MARGIN_CELLS * cc.CELL_PX)
    r, c = np.divmod(cell, 10)
    y0 = m + r * cc.CELL_PX + cc.CELL_PX // 2 - CROP // 2
    x0 = m + c * cc.CELL_PX + cc.CELL_PX // 2 - CROP // 2
    crops = np.stack(
        [maps[gi, :, y : y + CROP, x : x + CROP] for gi, y, x in zip(g, y0, x0, strict=True)]
    )
    return dequantise(torch.from_numpy(crops))


def predict(net, data, sc_mean, sc_scale):
    """Probabilities on unaugmented crops, averaged with the mirrored crops: exactly what
    ``CellNet`` computes at run time (a test checks the whole-grid equivalence)."""
    import torch

    modes = [m.training for m in net.modules()]  # frozen batch norms stay frozen after
    net.eval()
    pm, ps = [], []
    cells = np.arange(100)
    with torch.no_grad():
        for g in range(data["maps"].shape[0]):
            crops = crops_of(data["maps"], np.full(100, g), cells)
            sc = torch.from_numpy((data["scalars"][g] - sc_mean) / sc_scale).float()
            outs = [net(augment(crops, None, False, flip), sc).numpy() for flip in (False, True)]
            probs = []
            for out in outs:
                e = np.exp(out[:, :-1] - out[:, :-1].max(1, keepdims=True))
                probs.append((e / e.sum(1, keepdims=True), 1 / (1 + np.exp(-out[:, -1]))))
            pm.append(np.mean([q[0] for q in probs], axis=0))
            ps.append(np.mean([q[1] for q in probs], axis=0))
    for m, training in zip(net.modules(), modes, strict=True):
        m.train(training)
    return np.concatenate(pm), np.concatenate(ps)


def hard_cells(model: str, data: dict, conf: float, name: str) -> np.ndarray:
    """Flat indices (``grid * 100 + cell``) of the training cells the cell model at
    ``model`` (a ``.npz``, read as the reader reads: whole grid, mirrored) reads wrong or
    at a confidence under ``conf``: where the errors are (faint or shadowed shading, marks
    on shading), sampled more (:func:`model_readings`)."""
    pm, ps = model_readings(model, data, name)
    mark, shaded = data["mark"].ravel(), data["shaded"].ravel()
    sure = pm.max(1) * np.maximum(ps, 1 - ps)
    wrong = ((pm.argmax(1) != mark) & (mark >= 0)) | ((ps > 0.5) != (shaded > 0.5))
    out = np.flatnonzero(wrong | (sure < conf))
    print(f"hard cells: {len(out)} of {len(mark)} ({wrong.sum()} wrong)", flush=True)
    return out


def model_readings(model: str, data: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(mark_probs (N, 7), shaded_prob (N,))`` of every training cell (``grid * 100 +
    cell``) as the cell model at ``model`` reads it (whole grid, mirrored). Cached as
    ``hard_<model>-<content hash>_<name>_<grids>.npz`` beside the grids: a model file
    replaced under the same name (the shipped one) is read anew, and so are more training
    photos under the same ``name``."""
    digest = hashlib.sha256(Path(model).read_bytes()).hexdigest()[:12]
    cache = CACHE / f"hard_{Path(model).stem}-{digest}_{name}_{data['maps'].shape[0]}.npz"
    if cache.exists():
        with np.load(cache) as d:
            pm, ps = d["pm"], d["ps"]
    else:
        t0, net, pms, pss = time.time(), cc.CellNet.load(model), [], []
        for g in range(data["maps"].shape[0]):
            c = data["maps"].shape[1]
            maps = data["maps"][g].astype(np.float32) / np.float32(QUANT[:c])[:, None, None]
            m, sh = net.predict_half_mirrored(cc.half_maps(maps), data["scalars"][g])
            pms.append(m)
            pss.append(sh)
        pm, ps = np.concatenate(pms).astype(np.float32), np.concatenate(pss).astype(np.float32)
        partial = cache.with_suffix(".partial.npz")  # whole or not at all
        np.savez(partial, pm=pm, ps=ps)
        partial.replace(cache)
        print(f"read the training grids with {model} ({time.time() - t0:.0f}s)", flush=True)
    return pm, ps


#: the training cells of the specialist (``--specialist``): the shaded ones and those the
#: model it serves reads shaded at over ``SPEC_TRAIN_SHADED`` or names its mark at under
#: ``SPEC_TRAIN_MARK`` (wider than any gate tried at run time: its own training grids
#: read surer than new ones)
SPEC_TRAIN_SHADED = 0.2
SPEC_TRAIN_MARK = 0.95


def specialist_cells(pm: np.ndarray, ps: np.ndarray, shaded: np.ndarray) -> np.ndarray:
    """Flat indices of the cells a specialist trains on (:data:`SPEC_TRAIN_SHADED`)."""
    gate = (ps > SPEC_TRAIN_SHADED) | (pm.max(1) < SPEC_TRAIN_MARK) | (shaded.ravel() > 0.5)
    return np.flatnonzero(gate)


#: A cell's median shading darkness (its scalar ``q50``) from which its shading counts as
#: dark: about the darkest half of the shaded cells on the tuning photos (median 0.28),
#: where the marks the reader missed on tune lay (median 0.37).
DARK_SHADE = 0.3


def dark_marked_cells(data: dict) -> np.ndarray:
    """Flat indices (``grid * 100 + cell``) of the training cells holding a mark drawn on
    dark shading (``DARK_SHADE``): a mark there is a few strokes darker than the fill, and
    the reader's commonest miss on the tuning photos is such a mark read as a blank."""
    dark = data["scalars"][:, :, 2] >= DARK_SHADE  # the cell's median shading darkness
    keep = dark & (data["shaded"] > 0.5) & (data["mark"] > 0)
    out = np.flatnonzero(keep.ravel())
    print(f"marks on dark shading: {len(out)} of {keep.size} cells", flush=True)
    return out


#: The confidence thresholds tried on the validation photos (``--threshold`` is one of them).
THRESHOLDS = (0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 0.95)


def choose_threshold(pm, ps, mark, shaded, fixed: float | None = None) -> tuple[float, dict]:
    """The threshold minimising ``wrong + unknown / 4`` on the validation photos: an
    ``unknown`` (the player is asked) costs a quarter of a wrong answer (misled);
    ``fixed`` (one of the thresholds tried, chosen by other means) overrides the rule."""
    k = pm.argmax(1)
    conf = pm.max(1) * np.maximum(ps, 1 - ps)
    wrong = (k != mark) | ((ps > 0.5) != (shaded > 0.5))
    report = {}
    for t in THRESHOLDS:
        sure = conf >= t
        report[t] = (float((wrong & sure).mean()), float((~sure).mean()))
        print(f"  threshold {t:.2f}: wrong {report[t][0]:.4%}  unknown {report[t][1]:.4%}")
    rule = min(report, key=lambda t: report[t][0] + report[t][1] / 4)
    chosen = rule if fixed is None else fixed
    info = {"val_wrong_at_0": report[0.0][0], "val_at_threshold": report[chosen]}
    if chosen != rule:
        info["threshold_by_rule"] = rule
    return chosen, info


def val_curve_point(net, val: dict, sc_mean, sc_scale, t: float = 0.45) -> tuple[int, int, int]:
    """Cells wrong, cells unknown and grids read exactly on the validation grids at the
    confidence threshold ``t``: the point a ``--checkpoint`` adds to a run's validation
    curve (whether it is still learning when the time is up).
    """
    pm, ps = predict(net, val, sc_mean, sc_scale)
    n_grids = val["mark"].shape[0]
    conf = pm.max(1) * np.maximum(ps, 1 - ps)
    wrong = (pm.argmax(1) != val["mark"].ravel()) | ((ps > 0.5) != (val["shaded"].ravel() > 0.5))
    unknown = conf < t
    wrong &= ~unknown
    exact = int((~(wrong | unknown).reshape(n_grids, 100).any(1)).sum())
    return int(wrong.sum()), int(unknown.sum()), exact


def export(net, sc_mean, sc_scale, min_conf, info, path, upright_triangles=True):
    """Fold batch norm into the convolutions and save plain arrays (.npz);
    ``upright_triangles``: trained without quarter turns (the reader reads it turned)."""
    arrays = folded_arrays(net, sc_mean, sc_scale)
    arrays["upright_triangles"] = np.bool_(upright_triangles)
    arrays["min_confidence"] = np.float32(min_conf)
    arrays["info"] = np.array(json.dumps(info))
    np.savez_compressed(path, **arrays)


def export_specialist(net, sc_mean, sc_scale, info, path) -> None:
    """Save a specialist run (``spec.`` arrays, :class:`card_specialist.Specialist`, with
    its default gate and weights)."""
    spec = Specialist(folded_arrays(net, sc_mean, sc_scale), info=info)  # reads: the defaults
    np.savez_compressed(path, **spec.save_arrays())


def folded_arrays(net, sc_mean, sc_scale) -> dict:
    """A trained network's weights as the reader stores them: batch norm folded into the
    convolutions, dense layers (inputs, outputs), the scalars' normalisation."""
    arrays = {}
    convs = [m for m in net.conv if m.__class__.__name__ == "Conv2d"]
    bns = [m for m in net.conv if m.__class__.__name__ == "BatchNorm2d"]
    for i, (conv, bn) in enumerate(zip(convs, bns, strict=True)):
        w = conv.weight.detach().numpy()
        b = conv.bias.detach().numpy()
        s = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy()
        mu = bn.running_mean.detach().numpy()
        arrays[f"conv{i}_w"] = (w * s[:, None, None, None]).astype(np.float32)
        arrays[f"conv{i}_b"] = ((b - mu) * s + bn.bias.detach().numpy()).astype(np.float32)
    for name in ("fc1", "fc2"):
        layer = getattr(net, name)
        arrays[f"{name}_w"] = layer.weight.detach().numpy().T.astype(np.float32)
        arrays[f"{name}_b"] = layer.bias.detach().numpy().astype(np.float32)
    arrays["scalar_mean"] = sc_mean.astype(np.float32)
    arrays["scalar_scale"] = sc_scale.astype(np.float32)
    return arrays


def val_grids(indices, size, planes: int = 2):
    """``(half maps, scalars, mark, shaded)`` of the validation photos' grids, from the
    reader's own rectified grids (not the quantised training maps)."""
    half, scal, mark, shaded = [], [], [], []
    for _, mp, sc, mk, sh in tune_grids(indices, size, planes=planes):
        half.append(cc.half_maps(mp))
        scal.append(sc)
        mark.append(mk)
        shaded.append(sh)
    return half, scal, np.concatenate(mark), np.concatenate(shaded)


def combine(paths, out, indices, size, name=None, threshold=None) -> None:
    """Average the networks of ``paths`` (each a ``.npz`` of one or more) and choose the
    threshold for the ensemble on the validation photos ``indices`` (or keep
    ``threshold``, chosen on tuning photos by other means, and only report). A network
    trained with quarter turns is marked so the reader does not read it turned
    (:func:`~piecebridge.vision.card_cells.learned_upright_triangles`)."""
    runs = [cc.CellNet.load(p) for p in paths]
    for r in runs:
        turned = "quarter turns" in str((r.info or {}).get("trained_on"))
        for m in r.members:
            m.setdefault("upright_triangles", np.bool_(not turned))
    trained_on = {str((r.info or {}).get("trained_on")) for r in runs}
    for text in trained_on:  # else the threshold could be chosen on a member's own photos
        seen = re.search(r"tune split photos (\d+)\.\.(\d+)", text)
        if seen is None or (int(seen[2]) >= indices[0] and int(seen[1]) <= indices[-1]):
            raise SystemExit(f"validation photos {indices[0]}..{indices[-1]} overlap {text}")
    net = cc.CellNet([m for r in runs for m in r.members])
    half, scal, mark, shaded = val_grids(indices, size, net.planes)
    pm, ps = [], []
    for h, s in zip(half, scal, strict=True):
        m, sh = net.predict_half_mirrored(h, s)
        pm.append(m)
        ps.append(sh)
    thr, info = choose_threshold(np.concatenate(pm), np.concatenate(ps), mark, shaded, threshold)
    info.update(
        trained_on=" + ".join(sorted(trained_on)),
        threshold_from=f"tune split photos {indices[0]}..{indices[-1]}, ensemble, mirrored",
        members=[{"file": str(p), **(r.info or {})} for p, r in zip(paths, runs, strict=True)],
        command=" ".join(sys.argv),
        model=name,
    )
    net.min_confidence, net.info = thr, info
    net.save(out)
    print(f"saved {out}: {len(net.members)} networks, min_confidence {thr}")


def train_step(net, opt, x, scalars, mark, shaded) -> float:
    """One optimiser step on a batch: the mark's cross entropy plus the shading's."""
    import torch.nn.functional as F

    out = net(x, scalars)
    loss = F.cross_entropy(out[:, :-1], mark) + F.binary_cross_entropy_with_logits(
        out[:, -1], shaded
    )
    opt.zero_grad()
    loss.backward()
    opt.step()
    return float(loss.detach())


def train_specialist(a, train: dict, n_classic: int, sc_mean, sc_scale, data_name: str):
    """Train the full-resolution specialist (``--specialist``) on the cells the model
    ``--hard-from`` may read wrong (:func:`specialist_cells`) and a share ``--spec-other``
    of any cells; every ``--checkpoint`` minutes it is saved beside ``--out``
    (``<out>_<minutes>m.npz``), so a run cut short can still be read."""
    import torch

    rng = np.random.default_rng(a.seed)
    pm, ps = model_readings(a.hard_from, train, data_name)
    pool = specialist_cells(pm, ps, train["shaded"])
    pools = [pool[pool < n_classic * 100], pool[pool >= n_classic * 100]]
    print(f"specialist cells: {len(pools[0])} classic, {len(pools[1])} alt", flush=True)
    scalars = torch.from_numpy((train["scalars"] - sc_mean) / sc_scale).float()
    mark = torch.from_numpy(train["mark"])
    shaded = torch.from_numpy(train["shaded"])
    net = build_specialist(cc.N_SCALARS, a.planes)
    if a.init:
        net.load_state_dict(torch.load(a.init))
    # channels last: PyTorch's CPU convolutions run some 2.5 times faster on these sizes
    net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    n_grids = train["maps"].shape[0]
    budget, t_start = a.minutes * 60, time.time()
    step, loss_avg, saved = 0, 0.0, 1

    def info(done: bool) -> dict:
        return {
            "trained_on": f"tune split photos 0..{(a.train_photos or a.photos - a.val) - 1}"
            + (f" and alt-style tune photos {', '.join(a.alt_photos)}" if a.alt_photos else "")
            + f" at {a.size}: {len(pool)} cells {a.hard_from} may read wrong "
            f"(shaded over {SPEC_TRAIN_SHADED}, mark under {SPEC_TRAIN_MARK}, or shaded), "
            f"{a.spec_other:.0%} of each batch any cell, {a.turns:.0%} turned, "
            f"{a.sharpen:.0%} sharpened",
            "model": a.name,
            "steps": step,
            "minutes": round((time.time() - t_start) / 60, 1),
            "finished": done,
            "command": " ".join(sys.argv),
        }

    while (frac := (time.time() - t_start) / budget) < 1:
        for group in opt.param_groups:
            group["lr"] = a.lr * 0.5 * (1 + math.cos(math.pi * frac))
        u = rng.random(a.batch)
        any_cell = u < a.spec_other
        alt = (u >= a.spec_other) & (u < a.spec_other + (1 - a.spec_other) * a.alt_share)
        flat = np.where(
            alt & (len(pools[1]) > 0),
            pools[1][rng.integers(0, max(len(pools[1]), 1), a.batch)],
            pools[0][rng.integers(0, len(pools[0]), a.batch)],
        )
        flat = np.where(any_cell, rng.integers(0, n_grids * 100, a.batch), flat)
        g, cell = np.divmod(flat, 100)
        gt, ct = torch.from_numpy(g), torch.from_numpy(cell)
        x = _batch(train, g, cell, rng, a, full=True).contiguous(memory_format=torch.channels_last)
        sc = scalars[gt, ct] + 0.05 * torch.randn(a.batch, cc.N_SCALARS)
        loss = train_step(net, opt, x, sc, mark[gt, ct], shaded[gt, ct])
        step += 1
        loss_avg = 0.98 * loss_avg + 0.02 * loss
        if step % 100 == 0:
            print(
                f"step {step}, loss {loss_avg:.4f}, lr {opt.param_groups[0]['lr']:.2e} "
                f"({time.time() - t_start:.0f}s)",
                flush=True,
            )
        if a.checkpoint and time.time() - t_start >= saved * a.checkpoint * 60:
            ckpt = Path(a.out).with_name(f"{Path(a.out).stem}_{saved * a.checkpoint:g}m.npz")
            net.eval()
            export_specialist(net, sc_mean, sc_scale, info(False), ckpt)
            net.train()
            saved += 1
            print(f"checkpoint {ckpt}", flush=True)
    net.eval()
    export_specialist(net, sc_mean, sc_scale, info(True), a.out)
    torch.save(net.state_dict(), CACHE / f"{Path(a.out).stem}.pt")
    print(f"saved {a.out} ({step} steps)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--photos", type=int, default=1200)
    ap.add_argument("--val", type=int, default=100, help="last photos: threshold only")
    ap.add_argument("--size", default="2000x1500")
    ap.add_argument(
        "--train-data",
        help="training grids from this .npz (as benchmarks/card_turned.py writes) instead of "
        "the tuning photos' own, or 'r1turned': renderer 1's tuning photos 0..photos-val-1 "
        "cut by today's lattice (r1turned_data); validation photos are always rendered",
    )
    ap.add_argument(
        "--hard-share",
        type=float,
        default=0.0,
        help="share of each batch from the hard cells: those the model --hard-from reads "
        "wrong or at under --hard-conf on the unaugmented training grids",
    )
    ap.add_argument("--hard-from", default=str(cc.MODEL_PATH), help="a cell model (.npz)")
    ap.add_argument(
        "--dark-mark-share",
        type=float,
        default=0.0,
        help="share of each batch from the marks drawn on dark shading (dark_marked_cells): "
        "the marks the reader still misses most",
    )
    ap.add_argument("--hard-conf", type=float, default=0.9)
    ap.add_argument(
        "--alt-photos",
        nargs="+",
        default=[],
        metavar="FIRST-LAST",
        help=f"also train on these alt-style tuning photos, e.g. {ALT_TRAIN_FIRST}-199 "
        f"(0..{ALT_TRAIN_FIRST - 1} are kept for choosing and measuring)",
    )
    ap.add_argument(
        "--alt-share", type=float, default=0.25, help="share of each batch from alt-style grids"
    )
    ap.add_argument(
        "--turns",
        type=float,
        default=0.0,
        help="share of training patches turned a quarter, half or three quarters",
    )
    ap.add_argument(
        "--sharpen",
        type=float,
        default=0.0,
        help="share of training patches sharpened as a phone does (at most 0.7: the "
        "blurred 30 %% are not)",
    )
    ap.add_argument(
        "--faint-on-shade",
        type=float,
        default=0.0,
        help="share of the shaded cells' patches whose stroke map is made fainter "
        "(faint_strokes_on_shading)",
    )
    ap.add_argument("--name", help="the model's name, kept in its info (e.g. v10)")
    ap.add_argument(
        "--minutes",
        type=float,
        default=40,
        help="training time budget (0: only re-choose the threshold)",
    )
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--planes",
        type=int,
        choices=cc.KNOWN_PLANES,
        default=2,
        help="input planes: 3 adds the stroke layer in excess of its neighbourhood "
        "(card_cells.local_contrast), 4 also the stroke layer gained by the shading under "
        "it (card_cells.shade_gained_strokes)",
    )
    ap.add_argument(
        "--train-photos",
        type=int,
        help="train on classic tune photos 0..N-1 only (default: all before the --val ones)",
    )
    ap.add_argument("--prepare-only", action="store_true")
    ap.add_argument("--init", help="start from these PyTorch weights (a previous run's .pt)")
    ap.add_argument(
        "--init-model",
        metavar="NPZ:K",
        help="start from network K of this cell model (e.g. vision/card_cells_model.npz:1), "
        "its batch norms frozen (net_from_member)",
    )
    ap.add_argument(
        "--specialist",
        action="store_true",
        help="train the full-resolution specialist (card_specialist.Specialist) on the cells "
        "the model --hard-from may read wrong; written as its own .npz (spec. arrays)",
    )
    ap.add_argument(
        "--spec-other",
        type=float,
        default=0.2,
        help="with --specialist: share of each batch from any cell",
    )
    ap.add_argument(
        "--checkpoint",
        type=float,
        default=0.0,
        metavar="MINUTES",
        help="save the network every so many minutes beside --out (<out>_<minutes>m.npz); "
        "a cell network also prints its validation errors there (and at the start)",
    )
    ap.add_argument("--out", default=str(cc.MODEL_PATH))
    ap.add_argument("--combine", nargs="+", help="runs (.npz) to average into one model")
    ap.add_argument(
        "--threshold",
        type=float,
        choices=THRESHOLDS,
        help="with --combine: this confidence threshold (chosen on tuning photos) instead "
        "of the rule's",
    )
    a = ap.parse_args()
    if not 0 <= a.sharpen <= 0.7:  # the blurred 30 % are never sharpened (augment)
        ap.error("--sharpen is a share from 0 to 0.7")
    if a.init and a.init_model:
        ap.error("--init and --init-model: start from one of them")
    if a.init_model:
        path, _, k = a.init_model.rpartition(":")
        if not path or not k.isdigit() or not Path(path).is_file():
            ap.error(f"--init-model {a.init_model}: expected an existing NPZ file and :K")
    size = tuple(int(v) for v in a.size.split("x"))
    if a.combine:
        indices = list(range(a.photos - a.val, a.photos))
        combine(a.combine, a.out, indices, size, a.name, a.threshold)
        return

    import torch

    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    n_train = a.photos - a.val
    if a.train_photos is not None:
        if not 0 < a.train_photos <= n_train:
            ap.error(f"--train-photos is 1..{n_train} (the photos before the --val ones)")
        if a.train_data:
            ap.error("--train-photos chooses rendered photos, not --train-data")
        n_train = a.train_photos
    if a.planes != 2 and a.train_data:
        ap.error("--train-data grids have two planes")
    t0 = time.time()
    if a.train_data == "r1turned":
        train = r1turned_data(n_train)
    elif a.train_data:
        with np.load(a.train_data) as d:
            train = {k: d[k] for k in ("maps", "scalars", "mark", "shaded")}
    else:
        train = grid_data(list(range(n_train)), size, planes=a.planes)
    val = grid_data(list(range(a.photos - a.val, a.photos)), size, planes=a.planes)
    # scalars normalised by the classic grids only: a continued run keeps its inputs' scale
    sc_all = train["scalars"].reshape(-1, cc.N_SCALARS)
    sc_mean = sc_all.mean(0)
    sc_scale = sc_all.std(0) + 1e-3
    n_classic = train["maps"].shape[0]
    if a.alt_photos:
        alt = alt_grid_data(a.alt_photos, size, a.planes)
        train = {k: np.concatenate([train[k], alt[k]]) for k in train}
    print(
        f"data: {train['maps'].shape[0]} train grids ({n_classic} classic), "
        f"{val['maps'].shape[0]} val grids "
        f"({time.time() - t0:.0f}s)",
        flush=True,
    )
    if a.prepare_only:
        return
    if a.specialist:
        data_name = Path(a.train_data or "tune").stem + (
            f"_alt_{'_'.join(a.alt_photos)}" if a.alt_photos else ""
        )
        train_specialist(a, train, n_classic, sc_mean, sc_scale, f"{data_name}_g{vc.GRID_VERSION}")
        return
    scalars = torch.from_numpy((train["scalars"] - sc_mean) / sc_scale).float()
    mark = torch.from_numpy(train["mark"])
    shaded = torch.from_numpy(train["shaded"])

    net = build_net(cc.N_SCALARS, a.planes)
    if a.init_model:
        path, _, k = a.init_model.rpartition(":")
        member = cc.CellNet.load(path).members[int(k)]
        net, sc_mean, sc_scale = net_from_member(member, a.planes)
        freeze_batch_norm(net)
        scalars = torch.from_numpy((train["scalars"] - sc_mean) / sc_scale).float()
    elif a.init:
        load_init(net, torch.load(a.init), a.init)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    n_grids = train["maps"].shape[0]
    hard = None
    if a.hard_share:
        data_name = Path(a.train_data or "tune").stem + (
            f"_alt_{'_'.join(a.alt_photos)}" if a.alt_photos else ""
        )
        hard = hard_cells(a.hard_from, train, a.hard_conf, f"{data_name}_g{vc.GRID_VERSION}")
    dark = dark_marked_cells(train) if a.dark_mark_share else None
    if dark is not None and not len(dark):
        raise SystemExit("--dark-mark-share: the training grids have no marks on dark shading")
    budget = a.minutes * 60
    if a.checkpoint:  # the curve's first point: the network as it starts
        w, u, ex = val_curve_point(net, val, sc_mean, sc_scale)
        print(f"val at 0.45, step 0: wrong {w}, unknown {u}, grids exact {ex}", flush=True)
    t_start = time.time()
    step, seen, loss_avg, saved = 0, 0, 0.0, 1
    while True:
        frac = (time.time() - t_start) / budget if budget > 0 else 1.0
        if frac >= 1:
            break
        if a.checkpoint and time.time() - t_start >= saved * a.checkpoint * 60:
            # saved beside --out with its validation point, so a run cut short can be read
            ckpt = Path(a.out).with_name(f"{Path(a.out).stem}_{saved * a.checkpoint:g}m.npz")
            w, u, ex = val_curve_point(net, val, sc_mean, sc_scale)
            print(f"val at 0.45, step {step}: wrong {w}, unknown {u}, grids exact {ex}", flush=True)
            note = {
                "model": a.name,
                "steps": step,
                "finished": False,
                "command": " ".join(sys.argv),
            }
            export(net, sc_mean, sc_scale, 0.45, note, ckpt, upright_triangles=not a.turns)
            saved += 1
            print(f"checkpoint {ckpt}", flush=True)
        for group in opt.param_groups:
            group["lr"] = a.lr * 0.5 * (1 + math.cos(math.pi * min(frac, 1)))
        g = rng.integers(0, n_grids, a.batch)
        if n_grids > n_classic:  # a fixed share of each batch from the alt-style grids
            g = np.where(
                rng.random(a.batch) < a.alt_share,
                rng.integers(n_classic, max(n_grids, n_classic + 1), a.batch),
                rng.integers(0, n_classic, a.batch),
            )
        cell = rng.integers(0, 100, a.batch)
        # fixed shares of each batch from the hard cells and from the marks on dark shading
        # (one draw, so neither share overwrites the other)
        share = rng.random(a.batch)
        if hard is not None:
            pick = np.flatnonzero(share < a.hard_share)
            g[pick], cell[pick] = np.divmod(hard[rng.integers(0, len(hard), len(pick))], 100)
        if dark is not None:
            low = a.hard_share if hard is not None else 0.0
            pick = np.flatnonzero((share >= low) & (share < low + a.dark_mark_share))
            g[pick], cell[pick] = np.divmod(dark[rng.integers(0, len(dark), len(pick))], 100)
        gt, ct = torch.from_numpy(g), torch.from_numpy(cell)
        x = _batch(train, g, cell, rng, a)
        if a.faint_on_shade:
            x = faint_strokes_on_shading(x, train["shaded"][g, cell] > 0.5, a.faint_on_shade, rng)
        sc = scalars[gt, ct] + 0.05 * torch.randn(a.batch, cc.N_SCALARS)
        loss = train_step(net, opt, x, sc, mark[gt, ct], shaded[gt, ct])
        step += 1
        seen += a.batch
        loss_avg = 0.98 * loss_avg + 0.02 * loss
        if step % 200 == 0:
            print(
                f"step {step} ({seen} patches, {seen / n_grids / 100:.2f} epochs), loss "
                f"{loss_avg:.4f}, lr {opt.param_groups[0]['lr']:.2e} "
                f"({time.time() - t_start:.0f}s)",
                flush=True,
            )
    pm, ps = predict(net, val, sc_mean, sc_scale)
    vm, vs = val["mark"].ravel(), val["shaded"].ravel()
    thr, info = choose_threshold(pm, ps, vm, vs)
    alt_note = (
        f" and alt-style tune photos {', '.join(a.alt_photos)} ({a.alt_share:.0%} of each batch)"
        if n_grids > n_classic
        else ""
    )
    turn_note = f", {a.turns:.0%} of patches turned by quarter turns" if a.turns else ""
    if a.sharpen:
        turn_note += f", {a.sharpen:.0%} of patches sharpened (unsharp mask)"
    if a.faint_on_shade:
        turn_note += f", {a.faint_on_shade:.0%} of shaded patches with fainter strokes"
    if a.planes >= 3:
        turn_note += ", a third input plane (the strokes in excess of their neighbourhood)"
    if a.planes >= 4:
        turn_note += ", a fourth (the strokes gained by the shading under them)"
    if dark is not None:
        turn_note += (
            f", {a.dark_mark_share:.0%} of each batch from {len(dark)} marks on dark shading"
        )
    if hard is not None:
        turn_note += (
            f", {a.hard_share:.0%} of each batch from {len(hard)} hard cells "
            f"(read wrong or under {a.hard_conf} by {a.hard_from})"
        )
    info.update(
        trained_on=f"tune split photos 0..{n_train - 1}{alt_note} at {a.size}, "
        f"augmented patches{turn_note}",
        model=a.name,
        threshold_from=f"tune split photos {a.photos - a.val}..{a.photos - 1}",
        steps=step,
        patches_seen=seen,
        minutes=round((time.time() - t_start) / 60, 1),
        command=" ".join(sys.argv),
        continued_from=a.init_model or a.init,
    )
    export(net, sc_mean, sc_scale, thr, info, a.out, upright_triangles=not a.turns)
    torch.save(net.state_dict(), CACHE / f"{Path(a.out).stem}.pt")  # to fine-tune from
    print(f"saved {a.out} (min_confidence {thr}); {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
