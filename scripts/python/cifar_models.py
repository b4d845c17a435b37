"""The models of cifar-train in Python, to use the weights it exports.

The same Net (the PyTorch CIFAR-10 tutorial's), ResNet-18 (torchvision's
parameter names; the 3x3 CIFAR stem by default) and Airbench94 (the CIFAR-10
speedrun's network, src/cifar/model/airbench.h) as src/cifar/model/models.cpp, so a
state dict moves between the two with strict=True:

    import torch, cifar_models
    model = cifar_models.Net()
    model.load_state_dict(torch.load("net_state_dict.pt"))   # from cifar-export

or, with a .safetensors file (which says which model it holds):

    model, meta = cifar_models.load("net.safetensors")

Inputs are (N, 3, S, S) floats normalised as in training, S the side the
model was trained at (load()'s info["image_size"]; 32 unless --image-size said
otherwise), each image prepared as training prepared it (info["crop_mode"]
and info["crop_pct"], timm's names: "squash" 1.0, the whole image resized, for
CIFAR; "center" 0.875, torchvision's Resize + CenterCrop, for image folders):
to_input() prepares an image as cifar-eval and cifar-predict do, normalize()
does the normalisation for uint8 images the way cifar-train does.

The parts: cifar_nets.py (the networks), cifar_weights.py (reading weights
files: load, read_weights), cifar_prep.py (preparing images: to_input,
prepare, normalize); every name is here too.
"""
from cifar_nets import *  # noqa: F401,F403
from cifar_nets import (CLASSES, DEFAULT_MEAN, DEFAULT_STD, LITE_MEAN, LITE_STD,  # noqa: F401
                        MODEL_NAMES)
from cifar_prep import (kept_side, normalize, prepare, read_cifar10, read_image,  # noqa: F401
                        reduce, to_input)
from cifar_weights import _unwrap, load, read_weights  # noqa: F401
