"""Residual networks (He et al., 2015) with torchvision's module names, initialisation and
order of random draws, so a seeded ``resnet18()`` has torchvision's weights and its
``state_dict`` loads torchvision's checkpoints. No pretrained weights (nothing is
downloaded)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad import Tensor, nn

__all__ = ["BasicBlock", "Bottleneck", "ResNet", "resnet18", "resnet34", "resnet50"]


def conv3x3(
    in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1
) -> nn.Conv2d:
    """A 3x3 convolution without bias, padded to keep the size (at stride 1)."""
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """A 1x1 convolution without bias."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm, added to the input (``downsample`` adapts the
    input where the shape changes); ResNet-18 and -34 are made of these.

    Example::

        block = BasicBlock(64, 64)
        block(hookgrad.randn(2, 64, 8, 8)).shape   # (2, 64, 8, 8)
    """

    expansion = 1

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    """1x1, 3x3 (with the stride) and 1x1 convolutions with batch norm, the last one
    widening by 4, added to the input; ResNet-50 is made of these.

    Example::

        block = Bottleneck(256, 64)
        block(hookgrad.randn(2, 256, 8, 8)).shape   # (2, 256, 8, 8)
    """

    expansion = 4

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: nn.Module | None = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    """A 7x7 stride-2 convolution, a max pool, four stages of ``block`` (``layers[i]``
    blocks each, 64 to 512 planes, stages 2-4 halving the size), global average pooling
    and a linear classifier of ``num_classes``.

    Convolutions are initialised with ``kaiming_normal_(mode="fan_out")``, batch norms to
    1 and 0, after every layer has drawn its default initialisation (torchvision's order);
    ``zero_init_residual`` zeroes each block's last batch-norm scale.

    Example::

        model = ResNet(BasicBlock, [2, 2, 2, 2], num_classes=10)
        model(hookgrad.randn(2, 3, 32, 32)).shape   # (2, 10)
    """

    def __init__(
        self,
        block: type[BasicBlock] | type[Bottleneck],
        layers: list[int],
        num_classes: int = 1000,
        zero_init_residual: bool = False,
        groups: int = 1,
        width_per_group: int = 64,
        replace_stride_with_dilation: list[bool] | None = None,
        norm_layer: Callable[..., nn.Module] | None = None,
    ) -> None:
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        dilate = replace_stride_with_dilation or [False, False, False]
        if len(dilate) != 3:
            raise ValueError(
                "replace_stride_with_dilation should be None or a 3-element tuple, got "
                f"{replace_stride_with_dilation}"
            )
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=dilate[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=dilate[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=dilate[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(module.weight, 1)
                nn.init.constant_(module.bias, 0)
        if zero_init_residual:
            for module in self.modules():
                if isinstance(module, Bottleneck):
                    nn.init.constant_(module.bn3.weight, 0)
                elif isinstance(module, BasicBlock):
                    nn.init.constant_(module.bn2.weight, 0)

    def _make_layer(
        self,
        block: type[BasicBlock] | type[Bottleneck],
        planes: int,
        blocks: int,
        stride: int = 1,
        dilate: bool = False,
    ) -> nn.Sequential:
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                self._norm_layer(planes * block.expansion),
            )
        layers = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                previous_dilation,
                self._norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=self._norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        return self.fc(x.flatten(1))


def _resnet(
    block: type[BasicBlock] | type[Bottleneck],
    layers: list[int],
    weights: Any,
    progress: bool,
    kwargs: dict[str, Any],
) -> ResNet:
    if weights is not None or kwargs.pop("pretrained", False):
        raise RuntimeError(
            "hookgrad.vision has no pretrained weights (it downloads nothing): build the model "
            "with weights=None and load a state_dict you have with load_state_dict"
        )
    return ResNet(block, layers, **kwargs)


def resnet18(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-18: ``BasicBlock`` stages of 2, 2, 2, 2 (11.7M parameters at 1000 classes).

    Example::

        model = resnet18(weights=None, num_classes=10)
    """
    return _resnet(BasicBlock, [2, 2, 2, 2], weights, progress, kwargs)


def resnet34(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-34: ``BasicBlock`` stages of 3, 4, 6, 3.

    Example::

        model = resnet34(num_classes=10)
    """
    return _resnet(BasicBlock, [3, 4, 6, 3], weights, progress, kwargs)


def resnet50(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-50: ``Bottleneck`` stages of 3, 4, 6, 3.

    Example::

        model = resnet50(num_classes=10)
    """
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, kwargs)
