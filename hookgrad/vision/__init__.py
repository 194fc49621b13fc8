"""``hookgrad.vision``: a stand-in for torchvision, the parts that training scripts and
tutorials use most, written on hookgrad (torchvision itself needs torch's C++ library).

``hookgrad-inspect`` gives it to a script's ``import torchvision``; a plain script can
import it directly. Nothing is downloaded: datasets read torchvision's file layouts
under ``root``, or, where the files are missing and ``HOOKGRAD_SYNTHETIC_DATA=1`` is set,
give deterministic synthetic images. Images are NumPy arrays where torchvision gives PIL
images (no PIL dependency).

Modules: ``datasets`` (MNIST, FashionMNIST, KMNIST, CIFAR10, FakeData), ``transforms`` (Compose,
ToTensor, Normalize, Resize, crops, flips ...), ``utils`` (``make_grid``,
``save_image``), ``models`` (ResNet).

Example::

    import hookgrad as torch
    from hookgrad.vision import datasets, transforms

    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    loader = torch.utils.data.DataLoader(
        datasets.MNIST("data", train=True, transform=transform), batch_size=64, shuffle=True
    )
"""

from hookgrad.vision import datasets, models, transforms, utils

__all__ = ["datasets", "models", "transforms", "utils"]
