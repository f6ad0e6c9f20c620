"""torchvision's mobile classification architectures, defined here (torchvision's wheels on the package
index are built against a CUDA torch and do not load beside the CPU torch the tests pin).

Each follows the published layer structure of its torchvision counterpart: MobileNetV2 (inverted residuals,
ReLU6, any width), MobileNetV3-small (hard-swish, squeeze-excite with hard-sigmoid), MNASNet 1.0, SqueezeNet
1.1 (fire modules, ceil-mode max pooling), ShuffleNetV2 x0.5 (channel split, channel shuffle), EfficientNet-B0
(MBConv with SiLU and squeeze-excite) and ResNet-18. Weights are seeded and every batch norm gets random
statistics and affine parameters, so folding them is exercised for real.
"""

from __future__ import annotations

import torch
from torch import nn


def divisible(value: float, divisor: int = 8) -> int:
    """Channel counts rounded to a multiple of 8, never below 90% of the value (torchvision's rule)."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def conv_bn(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, act=nn.ReLU6) -> nn.Sequential:
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


def randomized(module: nn.Module, seed: int) -> nn.Module:
    """Seeded weights, non-identity batch-norm statistics, eval mode."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    for m in module.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu", generator=g)
            if m.bias is not None:
                nn.init.uniform_(m.bias, -0.1, 0.1, generator=g)
        elif isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.2)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)
    return module.eval()


# -- MobileNetV2 ---------------------------------------------------------------------------------------
class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = int(round(cin * expand))
        layers = [conv_bn(cin, hidden, 1)] if expand != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden), conv_bn(hidden, cout, 1, act=None)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1))

    def __init__(self, width: float = 1.0, classes: int = 10):
        super().__init__()
        cin = divisible(32 * width)
        last = divisible(1280 * max(1.0, width))
        layers = [conv_bn(3, cin, 3, 2)]
        for t, c, n, s in self.SETTINGS:
            cout = divisible(c * width)
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers.append(conv_bn(cin, last, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, classes))

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# -- MobileNetV3-small ---------------------------------------------------------------------------------
class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, squeezed: int, act=nn.ReLU, gate=nn.Hardsigmoid):
        super().__init__()
        self.fc1, self.fc2 = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)
        self.act, self.gate = act(), gate()

    def forward(self, x):
        s = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


class V3Block(nn.Module):
    def __init__(self, cin, k, expanded, cout, se: bool, act, stride):
        super().__init__()
        layers = [conv_bn(cin, expanded, 1, act=act)] if expanded != cin else []
        layers.append(conv_bn(expanded, expanded, k, stride, groups=expanded, act=act))
        if se:
            layers.append(SqueezeExcite(expanded, divisible(expanded // 4)))
        layers.append(conv_bn(expanded, cout, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.block(x) if self.residual else self.block(x)


class MobileNetV3Small(nn.Module):
    RE, HS = nn.ReLU, nn.Hardswish
    SETTINGS = ((16, 3, 16, 16, True, RE, 2), (16, 3, 72, 24, False, RE, 2), (24, 3, 88, 24, False, RE, 1),
                (24, 5, 96, 40, True, HS, 2), (40, 5, 240, 40, True, HS, 1), (40, 5, 240, 40, True, HS, 1),
                (40, 5, 120, 48, True, HS, 1), (48, 5, 144, 48, True, HS, 1), (48, 5, 288, 96, True, HS, 2),
                (96, 5, 576, 96, True, HS, 1), (96, 5, 576, 96, True, HS, 1))

    def __init__(self, classes: int = 10):
        super().__init__()
        layers = [conv_bn(3, 16, 3, 2, act=nn.Hardswish)]
        layers += [V3Block(*s) for s in self.SETTINGS]
        layers.append(conv_bn(96, 576, 1, act=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(1024, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


# -- MNASNet 1.0 ---------------------------------------------------------------------------------------
class MnasBlock(nn.Module):
    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        mid = cin * expand
        self.layers = nn.Sequential(conv_bn(cin, mid, 1, act=nn.ReLU), conv_bn(mid, mid, k, stride, mid, nn.ReLU),
                                    conv_bn(mid, cout, 1, act=None))
        self.residual = cin == cout and stride == 1

    def forward(self, x):
        return x + self.layers(x) if self.residual else self.layers(x)


class MNASNet(nn.Module):
    STACKS = ((24, 3, 2, 3, 3), (40, 5, 2, 3, 3), (80, 5, 2, 6, 3), (96, 3, 1, 6, 2), (192, 5, 2, 6, 4),
              (320, 3, 1, 6, 1))  # (channels, kernel, stride, expansion, repeats)

    def __init__(self, classes: int = 10):
        super().__init__()
        layers = [conv_bn(3, 32, 3, 2, act=nn.ReLU), conv_bn(32, 32, 3, 1, 32, nn.ReLU), conv_bn(32, 16, 1, act=None)]
        cin = 16
        for cout, k, s, e, n in self.STACKS:
            for i in range(n):
                layers.append(MnasBlock(cin, cout, k, s if i == 0 else 1, e))
                cin = cout
        layers.append(conv_bn(cin, 1280, 1, act=nn.ReLU))
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))


# -- SqueezeNet 1.1 ------------------------------------------------------------------------------------
class Fire(nn.Module):
    def __init__(self, cin, squeeze, expand):
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(cin, squeeze, 1), nn.ReLU())
        self.e1 = nn.Sequential(nn.Conv2d(squeeze, expand, 1), nn.ReLU())
        self.e3 = nn.Sequential(nn.Conv2d(squeeze, expand, 3, padding=1), nn.ReLU())

    def forward(self, x):
        x = self.squeeze(x)
        return torch.cat([self.e1(x), self.e3(x)], 1)


class SqueezeNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, 2), nn.ReLU(), pool(), Fire(64, 16, 64), Fire(128, 16, 64), pool(),
            Fire(128, 32, 128), Fire(256, 32, 128), pool(), Fire(256, 48, 192), Fire(384, 48, 192),
            Fire(384, 64, 256), Fire(512, 64, 256))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(512, classes, 1), nn.ReLU(),
                                        nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


# -- ShuffleNetV2 x0.5 ---------------------------------------------------------------------------------
def channel_shuffle(x, groups: int = 2):
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous().view(b, c, h, w)


class ShuffleBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        half = cout // 2
        self.stride = stride
        if stride > 1:
            self.branch1 = nn.Sequential(conv_bn(cin, cin, 3, stride, cin, None), conv_bn(cin, half, 1, act=nn.ReLU))
        self.branch2 = nn.Sequential(conv_bn(cin if stride > 1 else half, half, 1, act=nn.ReLU),
                                     conv_bn(half, half, 3, stride, half, None), conv_bn(half, half, 1, act=nn.ReLU))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), 1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), 1)
        return channel_shuffle(out)


class ShuffleNetV2(nn.Module):
    def __init__(self, repeats=(4, 8, 4), channels=(24, 48, 96, 192, 1024), classes: int = 10):
        super().__init__()
        layers = [conv_bn(3, channels[0], 3, 2, act=nn.ReLU), nn.MaxPool2d(3, 2, 1)]
        cin = channels[0]
        for n, cout in zip(repeats, channels[1:4]):
            layers += [ShuffleBlock(cin, cout, 2)] + [ShuffleBlock(cout, cout, 1) for _ in range(n - 1)]
            cin = cout
        layers.append(conv_bn(cin, channels[4], 1, act=nn.ReLU))
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(channels[4], classes)

    def forward(self, x):
        return self.fc(self.features(x).mean([2, 3]))


# -- EfficientNet-B0 -----------------------------------------------------------------------------------
class MBConv(nn.Module):
    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        mid = cin * expand
        layers = [conv_bn(cin, mid, 1, act=nn.SiLU)] if expand != 1 else []
        layers += [conv_bn(mid, mid, k, stride, mid, nn.SiLU),
                   SqueezeExcite(mid, max(1, cin // 4), act=nn.SiLU, gate=nn.Sigmoid), conv_bn(mid, cout, 1, act=None)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.block(x) if self.residual else self.block(x)


class EfficientNetB0(nn.Module):
    STAGES = ((1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
              (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1))

    def __init__(self, classes: int = 10):
        super().__init__()
        layers = [conv_bn(3, 32, 3, 2, act=nn.SiLU)]
        for e, k, s, cin, cout, n in self.STAGES:
            layers += [MBConv(cin if i == 0 else cout, cout, k, s if i == 0 else 1, e) for i in range(n)]
        layers.append(conv_bn(320, 1280, 1, act=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


# -- ResNet-18 -----------------------------------------------------------------------------------------
class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(conv_bn(cin, cout, 3, stride, act=nn.ReLU), conv_bn(cout, cout, 3, act=None))
        self.down = conv_bn(cin, cout, 1, stride, act=None) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        return torch.relu(self.body(x) + self.down(x))


class ResNet18(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        layers = [conv_bn(3, 64, 7, 2, act=nn.ReLU), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for i, cout in enumerate((64, 128, 256, 512)):
            layers += [BasicBlock(cin, cout, 1 if i == 0 else 2), BasicBlock(cout, cout, 1)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


ARCHITECTURES = {
    "mobilenet_v2": lambda: MobileNetV2(1.0),
    "mobilenet_v2_035": lambda: MobileNetV2(0.35),
    "mobilenet_v3_small": MobileNetV3Small,
    "mnasnet1_0": MNASNet,
    "squeezenet1_1": SqueezeNet,
    "shufflenet_v2_x0_5": ShuffleNetV2,
    "efficientnet_b0": EfficientNetB0,
    "resnet18": ResNet18,
}


def build(name: str, seed: int = 0) -> nn.Module:
    return randomized(ARCHITECTURES[name](), seed)
