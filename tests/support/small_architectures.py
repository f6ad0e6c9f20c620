"""Two non-classification-CNN shapes of the op-coverage proof, with seeded weights: a keyword-spotting
transformer block (MFCC patches embedded to d=64, two-head self-attention whose QK^T and attention x V are
products of two runtime operands, LayerNorm, a GELU MLP, mean pooling over tokens, 12 classes) and a
two-level U-Net (conv-bn-relu pairs, max pooling, a ConvTranspose2d 2x2/2 up path and a bilinear
(align_corners=False) upsampling up path, concatenated skips, a 1x1 convolution head)."""

from __future__ import annotations

import math

import torch
from torch import nn

from .mobile_architectures import randomized

KWS_SHAPE = (1, 1, 49, 10)


class SelfAttention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        tokens, d = x.shape[1], x.shape[2]
        q, k, v = self.qkv(x).reshape(1, tokens, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        weights = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim), dim=-1)
        return self.out(torch.matmul(weights, v).transpose(1, 2).reshape(1, tokens, d))


class KWSTransformer(nn.Module):
    """A KWT-style block: 7x10 patches of the [49, 10] MFCCs are the tokens (pre-norm encoder)."""

    def __init__(self, d: int = 64, heads: int = 2, classes: int = 12):
        super().__init__()
        self.embed = nn.Conv2d(1, d, (7, 10), (7, 10))
        self.position = nn.Parameter(torch.randn(1, 7, d) * 0.1)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.attention = SelfAttention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2) + self.position
        x = x + self.attention(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(self.norm3(x).mean(dim=1))


def _double_conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, cin: int = 3, classes: int = 4, width: int = 8):
        super().__init__()
        self.down1, self.down2 = _double_conv(cin, width), _double_conv(width, 2 * width)
        self.bottleneck = _double_conv(2 * width, 4 * width)
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, 2)
        self.dec2 = _double_conv(4 * width, 2 * width)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(2 * width, width, 1))
        self.dec1 = _double_conv(2 * width, width)
        self.head = nn.Conv2d(width, classes, 1)

    def forward(self, x):
        s1 = self.down1(x)
        s2 = self.down2(nn.functional.max_pool2d(s1, 2))
        b = self.bottleneck(nn.functional.max_pool2d(s2, 2))
        y = self.dec2(torch.cat([self.up2(b), s2], dim=1))
        y = self.dec1(torch.cat([self.up1(y), s1], dim=1))
        return self.head(y)


def _randomized(module: nn.Module, seed: int) -> nn.Module:
    """mobile_architectures.randomized, plus seeded LayerNorm affine parameters and transposed weights."""
    module = randomized(module, seed)
    g = torch.Generator().manual_seed(seed + 2)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            elif isinstance(m, nn.ConvTranspose2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu", generator=g)
    return module


ARCHITECTURES = {"kws_transformer": KWSTransformer, "unet": UNet}


def build(name: str, seed: int = 0) -> nn.Module:
    return _randomized(ARCHITECTURES[name](), seed)


def input_shape(name: str, resolution: int) -> tuple[int, ...]:
    return KWS_SHAPE if name == "kws_transformer" else (1, 3, resolution, resolution)
