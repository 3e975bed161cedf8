"""The index classifier: a small CNN that names a corner-index crop.

Factorised heads learn faster and transfer better to unseen deck designs than a
53-way head: the rank (A-K, Joker, or "none": not an index), the suit, and the
reading direction (the card's "down" as the index reads, a unit vector). The exported
ONNX model returns the joint ``probs`` over the 53 codes plus "none"
(p(rank) x p(suit)) and ``down``, so the runtime needs no knowledge of the heads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from onze_vision.indexcrop import CROP_SIZE
from onze_vision.synth.codes import CARD_CODES, RANKS, SUITS
from onze_vision.training.crops import JOKER_RANK, NONE_RANK, RANK_CLASSES, CropSet, probs_index
from onze_vision.training.halfweights import float_initializers, half_state_dict, store_half_weights


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def _conv_norm(block: nn.Sequential) -> tuple[nn.Conv2d, nn.BatchNorm2d]:
    """The convolution and the batch norm of a block :func:`_conv` built."""
    conv, norm = block[0], block[1]
    assert isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d)  # as _conv builds every block
    return conv, norm


class IndexClassifier(nn.Module):
    """48x48 RGB crop -> rank logits (15), suit logits (4), down vector (2).

    About 25 M multiply-adds per crop: small enough to train for hundreds of
    thousands of crops in minutes on two CPU cores.

    Args:
        width: Channels of the 24x24 stage; the later stages double it.
        top: Channels of the last (6x6) stage, ``4 * width`` by default. It holds most
            of the parameters at a fraction of the multiply-adds; :func:`widen_top`
            grows a trained network's there without changing what it computes.
    """

    def __init__(self, width: int = 32, top: int | None = None) -> None:
        super().__init__()
        top = top or width * 4
        self.features = nn.Sequential(
            _conv(3, width // 2), _conv(width // 2, width, stride=2),  # 24
            _conv(width, width), nn.MaxPool2d(2),  # 12
            _conv(width, width * 2), _conv(width * 2, width * 2), nn.MaxPool2d(2),  # 6
            _conv(width * 2, top), _conv(top, top),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        features = top
        self.rank = nn.Linear(features, len(RANK_CLASSES))
        self.suit = nn.Linear(features, len(SUITS))
        self.down = nn.Linear(features, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.heads_and_features(x)[:3]

    def heads_and_features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The three heads' outputs and the features they read (``top`` values a crop)."""
        f = self.features((x - 0.5) / 0.25)
        return self.rank(f), self.suit(f), self.down(f), f


class ExportedClassifier(nn.Module):
    """The runtime's view: joint probabilities over 53 codes + "none", a unit down vector,
    and the features the heads read, scaled to length 1 (how a crop looks to the network:
    :mod:`onze_vision.jokers` matches a deck's own Joker by them)."""

    # Buffers: the rank and suit class of each card code's column.
    rank_idx: torch.Tensor
    suit_idx: torch.Tensor

    def __init__(self, model: IndexClassifier) -> None:
        super().__init__()
        self.model = model
        # Columns of the joint output: card code (rank, suit) pairs in CARD_CODES order.
        rank_idx = [RANKS.index(c[:-1]) for c in CARD_CODES[:-1]]
        suit_idx = [SUITS.index(c[-1]) for c in CARD_CODES[:-1]]
        self.register_buffer("rank_idx", torch.tensor(rank_idx))
        self.register_buffer("suit_idx", torch.tensor(suit_idx))

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        rank_logits, suit_logits, down, features = self.model.heads_and_features(crops)
        p_rank = F.softmax(rank_logits, dim=1)
        p_suit = F.softmax(suit_logits, dim=1)
        cards = p_rank[:, self.rank_idx] * p_suit[:, self.suit_idx]
        probs = torch.cat([cards, p_rank[:, JOKER_RANK : JOKER_RANK + 1], p_rank[:, NONE_RANK:]], dim=1)
        return probs, F.normalize(down, dim=1), F.normalize(features, dim=1)


def vote_shares(shares: Sequence[float] | None, count: int) -> list[float]:
    """Each of ``count`` members' share of an ensemble's vote, summing to 1 (equal without
    ``shares``); shares that are not one positive number per member are refused."""
    weights = [float(w) for w in shares] if shares is not None else [1.0] * count
    if len(weights) != count or not all(w > 0 for w in weights):   # NaN is not > 0
        raise ValueError(f"an ensemble of {count} needs as many positive shares, got {weights}")
    return [w / sum(weights) for w in weights]


class ExportedEnsemble(nn.Module):
    """Several classifiers as one model with the runtime's contract: their ``probs`` averaged
    (weighted by ``shares``, equal by default), their ``down`` vectors summed with the same
    weights and normalised, and their unit ``features`` side by side (each member's of
    length 1, so the whole has length sqrt(members)).

    Members trained on different mixes of designs err on different unseen ones, so the
    average reads unseen designs better than either (measured: ``models/HISTORY.md``). A
    member much better than the others gets a larger share rather than being copied, which
    would cost its run time again.
    """

    shares: torch.Tensor  # a buffer: saved with the module, exported as a constant

    def __init__(self, models: Sequence[IndexClassifier], shares: Sequence[float] | None = None) -> None:
        super().__init__()
        self.members = nn.ModuleList(ExportedClassifier(model) for model in models)
        self.register_buffer("shares", torch.tensor(vote_shares(shares, len(models)), dtype=torch.float32))

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        outputs = [member(crops) for member in self.members]
        weights = self.shares.view(-1, 1, 1)
        probs = (torch.stack([probs for probs, _, _ in outputs]) * weights).sum(dim=0)
        down = (torch.stack([down for _, down, _ in outputs]) * weights).sum(dim=0)
        return probs, F.normalize(down, dim=1), torch.cat([features for _, _, features in outputs], dim=1)


def widen_top(model: IndexClassifier, top: int, seed: int = 0, noise: float = 0.01) -> IndexClassifier:
    """Nearly the same function with ``top`` channels in the last stage (Net2WiderNet).

    Each new channel copies a random old one (convolution, batch norm); whatever reads a
    copied channel has its weight split between the copies, so the outputs stay as they
    were and training goes on from where the narrow network stood. Exact copies would
    get equal gradients and stay copies for ever, so the split weights get ``noise``
    (relative) to tell them apart.
    """
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    first, second = blocks[-2], blocks[-1]
    old = _conv_norm(second)[0].out_channels
    if top < old:
        raise ValueError(f"widen_top: the last stage has {old} channels; cannot narrow it to {top}")
    width = _conv_norm(blocks[1])[0].out_channels
    wide = IndexClassifier(width=width, top=top)
    # Everything before the last stage carries over as it is; the last stage and heads are copied below.
    rebuilt = tuple(f"features.{i}." for i, m in enumerate(model.features) if m is first or m is second)
    wide.load_state_dict({k: v for k, v in model.state_dict().items()
                          if not k.startswith((*rebuilt, "rank", "suit", "down"))}, strict=False)
    gen = torch.Generator().manual_seed(seed)

    def mapping() -> torch.Tensor:
        return torch.cat([torch.arange(old), torch.randint(0, old, (top - old,), generator=gen)])

    def copy_block(src: nn.Sequential, dst: nn.Sequential, out_map: torch.Tensor, in_map: torch.Tensor | None) -> None:
        (src_conv, src_norm), (dst_conv, dst_norm) = _conv_norm(src), _conv_norm(dst)
        weight = src_conv.weight.data[out_map]
        if in_map is not None:  # split each input channel's weight between its copies
            counts = torch.bincount(in_map, minlength=old).float()
            weight = weight[:, in_map] / counts[in_map].view(1, -1, 1, 1)
            weight = weight * (1 + noise * torch.randn(weight.shape, generator=gen))
        dst_conv.weight.data.copy_(weight)
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(dst_norm, name).data.copy_(getattr(src_norm, name).data[out_map])

    wide_blocks = [m for m in wide.features if isinstance(m, nn.Sequential)]
    map_first, map_second = mapping(), mapping()
    with torch.no_grad():
        copy_block(first, wide_blocks[-2], map_first, None)
        copy_block(second, wide_blocks[-1], map_second, map_first)
        counts = torch.bincount(map_second, minlength=old).float()
        for head in ("rank", "suit", "down"):
            src, dst = getattr(model, head), getattr(wide, head)
            split = src.weight[:, map_second] / counts[map_second].view(1, -1)
            dst.weight.copy_(split * (1 + noise * torch.randn(split.shape, generator=gen)))
            dst.bias.copy_(src.bias)
    return wide.train(model.training)


def _members(models: IndexClassifier | Sequence[IndexClassifier]) -> list[IndexClassifier]:
    """One classifier or several, as a list."""
    return [models] if isinstance(models, IndexClassifier) else list(models)


def exported(models: IndexClassifier | Sequence[IndexClassifier], shares: Sequence[float] | None = None) -> nn.Module:
    """The runtime's view of one classifier or of an ensemble of them (each member's share
    of the vote: equal by default), in evaluation mode."""
    members = _members(models)
    return (ExportedClassifier(members[0]) if len(members) == 1 else ExportedEnsemble(members, shares)).eval()


def _stroke_and_resolution(x: torch.Tensor, gen: torch.Generator, share: float = 0.35) -> torch.Tensor:
    """Vary what tells unseen deck designs apart from the training ones.

    Stroke weight: a 3x3 min filter thickens dark ink, a max filter thins it, blended
    in by a random amount (fonts differ mostly in weight and serifs). Resolution: a
    round trip through 12-40 px, as a far-away index reaches the 48 px crop.
    Each applies to ``share`` of the crops.
    """
    n, _, size, _ = x.shape
    on = gen.device  # every draw on the generator's device: the crops may be on a GPU
    x = x.clone()
    pick = torch.rand(n, generator=gen, device=on) < share
    if pick.any():
        chosen = x[pick]
        thick = -F.max_pool2d(-chosen, 3, stride=1, padding=1)
        thin = F.max_pool2d(chosen, 3, stride=1, padding=1)
        amount = torch.rand(len(chosen), 1, 1, 1, generator=gen, device=on)
        towards = torch.where(torch.rand(len(chosen), 1, 1, 1, generator=gen, device=on) < 0.5, thick, thin)
        x[pick] = chosen + (towards - chosen) * amount
    pick = torch.rand(n, generator=gen, device=on) < share
    if pick.any():
        low = int(torch.randint(12, 41, (1,), generator=gen, device=on))
        small = F.interpolate(x[pick], size=(low, low), mode="area")
        x[pick] = F.interpolate(small, size=(size, size), mode="bilinear", align_corners=False)
    return x


def _augment(x: torch.Tensor, down: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Photometric jitter and quarter turns (which turn the down vector with the crop)."""
    n, on = x.shape[0], gen.device
    k = int(torch.randint(0, 4, (1,), generator=gen, device=on))
    if k:
        x = torch.rot90(x, k, dims=(2, 3))  # counter-clockwise as displayed
        for _ in range(k):
            down = torch.stack([down[:, 1], -down[:, 0]], dim=1)
    x = _stroke_and_resolution(x, gen)
    gain = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=gen, device=on) - 0.5) * 2
    colour = 1 + 0.08 * (torch.rand(n, 3, 1, 1, generator=gen, device=on) - 0.5) * 2
    offset = 0.12 * (torch.rand(n, 1, 1, 1, generator=gen, device=on) - 0.5) * 2
    x = x * gain * colour + offset
    x = x + torch.randn(x.shape, generator=gen, device=on) * 0.03 * torch.rand(n, 1, 1, 1, generator=gen, device=on)
    return x.clamp(0, 1), down


def _crop_bytes(images: np.ndarray) -> torch.Tensor:
    """BGR crops [N, S, S, 3] as the network's layout, still bytes: RGB, channels first [N, 3, S, S]."""
    return torch.from_numpy(np.ascontiguousarray(images[..., ::-1])).permute(0, 3, 1, 2)


def _to_tensor(images: np.ndarray) -> torch.Tensor:
    return _crop_bytes(images).float() / 255.0


def torch_device(name: str | int | torch.device) -> torch.device:
    """The torch device a ``--device`` value names: ``cpu``, a CUDA index such as ``0``, or ``cuda:1``."""
    text = str(name).strip()
    try:
        device = torch.device(f"cuda:{text}" if text.isdigit() else text)
    except RuntimeError as error:
        raise ValueError(f"unknown device '{name}': use cpu, a CUDA index such as 0, or cuda:N") from error
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device '{name}' asks for CUDA, and this machine's PyTorch sees no CUDA GPU")
    return device


def _device_of(model: nn.Module) -> torch.device:
    return next(model.parameters()).device


def evaluate_classifier(model: IndexClassifier | Sequence[IndexClassifier], crops: CropSet,
                        batch: int = 512, shares: Sequence[float] | None = None) -> dict[str, float]:
    """Accuracy of the joint code (53 + none), of the rank, and mean angle error of down.

    Runs where the (first) model's weights are: the CPU, or the GPU it is training on.
    """
    runtime_view = exported(model, shares)
    device = _device_of(runtime_view)
    correct = rank_ok = 0
    angle_err: list[float] = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = _to_tensor(crops.images[i : i + batch]).to(device)
            probs, down = (t.cpu() for t in runtime_view(x)[:2])
            pred = probs.argmax(1).numpy()
            for j, p in enumerate(pred):
                r, s = int(crops.rank[i + j]), int(crops.suit[i + j])
                target = probs_index(r, s)
                correct += int(p == target)
                rank_ok += int((p == target) or (r not in (NONE_RANK, JOKER_RANK) and p < 52 and CARD_CODES[p][:-1] == RANKS[r]))
                if r != NONE_RANK:
                    cos = float(np.clip(np.dot(down[j].numpy(), crops.down[i + j]), -1, 1))
                    angle_err.append(math.degrees(math.acos(cos)))
    n = max(len(crops), 1)
    return {
        "code_accuracy": correct / n,
        "rank_accuracy": rank_ok / n,
        "down_error_deg_median": float(np.median(angle_err)) if angle_err else 0.0,
    }


#: Seconds between progress lines, and between validations with a checkpoint, while training.
LOG_EVERY_S = 30.0
CHECKPOINT_EVERY_S = 300.0


def train_classifier(
    train: CropSet,
    val: CropSet | None,
    minutes: float,
    out_path: Path,
    batch: int = 128,
    lr: float = 3e-3,
    seed: int = 0,
    log=print,
    init: Path | None = None,
    widen: int | None = None,
    width: int = 32,
    device: str | int | torch.device = "cpu",
) -> IndexClassifier:
    """Train for a wall-clock budget, checkpointing to ``out_path``; return the model on the CPU.

    The learning rate follows the *elapsed share of the budget* (warm-up, then cosine
    decay), not a step count: on a shared CPU the step time changes as other jobs come
    and go, and the schedule must still end annealed when the time is up.

    Args:
        width: Channels of a network trained from scratch (:class:`IndexClassifier`); a
            network continued from ``init`` keeps its own.
        device: Where to train: ``cpu``, or a CUDA device (``0``, ``cuda:1``) on a lent GPU.
            The crops go there once as bytes and are augmented there, batch by batch.
    """
    torch.manual_seed(seed)
    target = torch_device(device)
    gen = torch.Generator(device=target).manual_seed(seed)
    model = load_classifier(init, train) if init is not None else IndexClassifier(width=width)  # continue a run
    if widen:
        model = widen_top(model, widen, seed=seed)
    if minutes <= 0:  # nothing to train: the initial model as it is (e.g. to ensemble it)
        return model.eval()
    model.to(target)
    if target.type == "cuda":
        torch.backends.cudnn.benchmark = True  # one crop size throughout: let cuDNN pick its fastest kernels
    # Bytes, channels first, RGB: a quarter of the memory of floats; each batch is scaled as it is drawn.
    images = _crop_bytes(train.images).contiguous().to(target)
    rank = torch.from_numpy(train.rank).to(target)
    suit = torch.from_numpy(train.suit).to(target)
    down = torch.from_numpy(train.down).to(target)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    budget = minutes * 60
    started = last_log = last_checkpoint = time.perf_counter()
    step = 0
    model.train()
    while True:
        now = time.perf_counter()
        share = (now - started) / budget
        if share >= 1.0:
            break
        for group in opt.param_groups:
            group["lr"] = lr * (share / 0.08 if share < 0.08 else 0.5 * (1 + math.cos(math.pi * (share - 0.08) / 0.92)))
        idx = torch.randint(0, len(train), (batch,), generator=gen, device=target)
        x, d = _augment(images[idx].float() / 255.0, down[idx], gen)
        rank_logits, suit_logits, down_pred = model(x)
        r, s = rank[idx], suit[idx]
        loss = F.cross_entropy(rank_logits, r, label_smoothing=0.05)
        has_suit = s >= 0
        if has_suit.any():
            loss = loss + F.cross_entropy(suit_logits[has_suit], s[has_suit], label_smoothing=0.05)
        has_down = r != NONE_RANK
        if has_down.any():
            loss = loss + (1 - F.cosine_similarity(down_pred[has_down], d[has_down], dim=1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if now - last_log >= LOG_EVERY_S:
            last_log = now
            msg = f"classifier step {step} ({share:.0%} of {minutes:g} min, {target}) loss {loss.item():.3f}"
            if val is not None and now - last_checkpoint >= CHECKPOINT_EVERY_S:
                last_checkpoint = now
                model.eval()
                msg += f" val {evaluate_classifier(model, val)}"
                model.train()
                torch.save(model.state_dict(), out_path)
            log(msg)
    model.eval()
    log(f"classifier: {step} steps of {batch} crops in {minutes:g} min on {target}")
    model.cpu()
    torch.save(model.state_dict(), out_path)
    return model


def save_classifier(models: IndexClassifier | Sequence[IndexClassifier], path: Path,
                    shares: Sequence[float] | None = None) -> None:
    """Write the ``.pt`` to continue training from: one state dict, or
    ``{"members": [...], "shares": [...]}`` (each member's share of the vote).

    The weights are stored as float16, as Ultralytics stores its own (:mod:`.halfweights`);
    loading fills float32 networks with them.
    """
    members = _members(models)
    if len(members) == 1:
        torch.save(half_state_dict(members[0].state_dict()), path)
    else:
        torch.save({"members": [half_state_dict(model.state_dict()) for model in members],
                    "shares": vote_shares(shares, len(members))}, path)


def join_shares(shares: Sequence[float], share: float | None = None) -> list[float]:
    """The shares of an ensemble with one member added last: ``share`` of the vote for it (by
    default an equal member's), the others keeping their proportions of the rest."""
    added = share if share is not None else 1 / (len(shares) + 1)
    return [w * (1 - added) for w in shares] + [added]


def without_newest(members: Sequence[IndexClassifier], shares: Sequence[float]
                   ) -> tuple[list[IndexClassifier], list[float], float]:
    """An ensemble less its newest (last) member, the others' shares scaled back to a whole
    vote, and the share the newest had: what its continuation replaces it by."""
    if len(members) < 2:
        raise ValueError(f"an ensemble of {len(members)} has no member left once its newest is replaced")
    kept = vote_shares(shares, len(members))
    rest = sum(kept[:-1])
    return list(members[:-1]), [w / rest for w in kept[:-1]], kept[-1]


def load_classifier_ensemble(path: Path) -> tuple[list[IndexClassifier], list[float]]:
    """Every classifier in a ``.pt`` (one for a plain state dict, all members of an ensemble)
    and each one's share of the vote, as saved (equal where none were saved)."""
    saved = torch.load(path, map_location="cpu")
    ensemble = isinstance(saved, dict) and "members" in saved
    states = saved["members"] if ensemble else [saved]
    models = []
    for state in states:
        # The architecture from the weights: stage widths are the convolutions' output channels.
        model = IndexClassifier(width=state["features.1.0.weight"].shape[0], top=state["rank.weight"].shape[1])
        model.load_state_dict(state)
        models.append(model.eval())
    saved_shares = saved.get("shares") if ensemble else None  # ensembles saved before shares: equal
    return models, [float(w) for w in saved_shares or [1.0 / len(models)] * len(models)]


def load_classifier_members(path: Path) -> list[IndexClassifier]:
    """Every classifier in a ``.pt``: one for a plain state dict, all members of an ensemble."""
    return load_classifier_ensemble(path)[0]


def load_classifier(path: Path, calibration: CropSet | None = None) -> IndexClassifier:
    """A trainable classifier from a state dict (``.pt``) or from its ONNX export.

    An ensemble's ``.pt`` gives its newest (last) member; an ensemble's ONNX export
    cannot be split back into members (use its ``.pt``).

    The export folds each batch norm into the convolution before it, so an ``.onnx``
    gives the folded weights. Each batch norm is then re-created around its
    convolution with the statistics that convolution's outputs have on
    ``calibration`` crops, and with an affine part that undoes them, so the network
    computes what the export did in evaluation *and* in training mode, and
    training continues from where the export left off.
    """
    if Path(path).suffix != ".onnx":
        return load_classifier_members(path)[-1].train()
    import onnx

    graph = onnx.load(str(path)).graph
    tensors = {name: torch.from_numpy(values.copy()) for name, values in float_initializers(graph).items()}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    # Its sizes as exported (a lent GPU's run trains at width 64): the second convolution's
    # outputs are the width, the heads' inputs the top stage.
    width = int(tensors[convs[1].input[1]].shape[0]) if len(convs) > 1 and convs[1].input[1] in tensors else 32
    top = int(tensors["model.rank.weight"].shape[1]) if "model.rank.weight" in tensors else None
    model = IndexClassifier(width=width, top=top)
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        hint = " (an ensemble's export: continue from its .pt)" if len(convs) % len(blocks) == 0 else ""
        raise ValueError(f"'{path}' has {len(convs)} convolutions; the classifier has {len(blocks)}{hint}")
    for head in ("rank", "suit", "down"):
        getattr(model, head).weight.data.copy_(tensors[f"model.{head}.weight"])
        getattr(model, head).bias.data.copy_(tensors[f"model.{head}.bias"])
    if calibration is None or len(calibration) == 0:
        raise ValueError("recovering a classifier from ONNX needs calibration crops")
    sample = torch.from_numpy(np.random.default_rng(0).choice(len(calibration), min(2048, len(calibration)), replace=False))
    x = (_to_tensor(calibration.images[sample.numpy()]) - 0.5) / 0.25
    with torch.no_grad():
        for layer in model.features:
            if isinstance(layer, nn.Sequential):  # conv, batch norm, relu
                conv, norm = _conv_norm(layer)
                node = convs[blocks.index(layer)]
                conv.weight.data.copy_(tensors[node.input[1]])
                y = conv(x)
                mean, var = y.mean(dim=(0, 2, 3)), y.var(dim=(0, 2, 3), unbiased=False)
                std = torch.sqrt(var + norm.eps)
                # _conv's batch norms track running statistics (None only when told not to).
                assert norm.running_mean is not None and norm.running_var is not None
                norm.running_mean.copy_(mean)
                norm.running_var.copy_(var)
                norm.weight.data.copy_(std)  # (y - mean) / std * std + (bias + mean) = y + bias
                norm.bias.data.copy_(tensors[node.input[2]] + mean)
                x = layer[2](y + tensors[node.input[2]].view(1, -1, 1, 1))
            else:
                x = layer(x)
    return model


def export_classifier(model: IndexClassifier | Sequence[IndexClassifier], path: Path,
                      shares: Sequence[float] | None = None, half_weights: bool = True) -> None:
    """Write the ONNX model the runtime loads: ``crops`` -> ``probs``, ``down``, ``features``.

    Several models are exported as one ensemble (:class:`ExportedEnsemble`) with the same
    inputs and outputs, so the runtime does not know the difference. The weights are stored
    as float16 and computed with as float32 (:func:`.halfweights.store_half_weights`) unless
    ``half_weights`` is false.
    """
    dummy = torch.rand(2, 3, CROP_SIZE, CROP_SIZE)
    torch.onnx.export(
        exported(model, shares),
        (dummy,),
        str(path),
        input_names=["crops"],
        output_names=["probs", "down", "features"],
        dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}, "down": {0: "n"}, "features": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    if half_weights:
        store_half_weights(path)
