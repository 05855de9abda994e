#!/usr/bin/env python3
"""Writes manifest.tsv from the selection rules below (issue 31, data for the pixel detector).

The rules are the record of what was chosen from each public source and why; every choice was made by
looking at the images (contact sheets) and reading the source's README. This script reads the git
snapshots under /work/.mirror (brought with the search tool's `fetch`) and the Debian .debs cached by
build.ts, hashes each file, measures it with ImageMagick's `identify`, drops what is under 128 px on a
side, blank (flat) renders and Git LFS pointers, drops exact duplicates (same SHA-256: the first source
in SOURCES keeps it), and writes one TSV row per image. It needs nothing from the sources but their
image bytes: no fetched code is built or run.

    python3 scripts/eval/ai-data/curate.py          # rewrites scripts/eval/ai-data/manifest.tsv
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
MIRROR = os.environ.get("MIRROR", "/work/.mirror")
DEBCACHE = os.path.join(ROOT, ".cache/ai-data-src/debian")
IMG = re.compile(r"\.(png|jpe?g|webp)$", re.I)

# family names: latent-diffusion, pixel-diffusion, gan, autoregressive, commercial-unknown, diffusion-unknown

def g(gen, fam, tags=""):
    return ("generated", gen, fam, tags)

def r(tags=""):
    return ("real", "-", "-", tags)

# dcsan/imagen names each render by the model's prefix (data/configs.py in that repository).
DCSAN = {
    "dal2": ("dalle-2", "commercial-unknown", 78),
    "midj": ("midjourney", "commercial-unknown", 90),       # Midjourney of mid-2022 (v3)
    "disco": ("disco-diffusion", "pixel-diffusion", 80),   # nightmareai/disco-diffusion, 256x256_diffusion_uncond (ADM)
    "dmin": ("dalle-mini", "autoregressive", 80),          # borisdayma/dalle-mini
    "ldif": ("ldm", "latent-diffusion", 80),               # nicholascelestin/latent-diffusion (CompVis LDM text2img)
    "glid3": ("glid-3-xl", "latent-diffusion", 80),        # afiaka87/glid-3-xl
    "stab": ("sd-1.x", "latent-diffusion", 80),            # "stabAI-fast": Stability AI's API in 2022 (Stable Diffusion v1 era)
    "mdif": ("majesty-diffusion", "latent-diffusion", 21), # nightmareai/majesty-diffusion
}

def dcsan(path):
    m = re.search(r"/([a-z0-9]+?)(\d?)-\d+\.(png|jpg)$", path)
    if not m:
        return None
    key = m.group(1) + m.group(2)
    if key not in DCSAN:
        key = m.group(1)
    if key not in DCSAN:
        return None  # simu (config name and model disagree), lmdv, pixray: left out
    gen, fam, _ = DCSAN[key]
    return g(gen, fam)

# (source, split, licence, rules, limit) — rules: list of (regex on path, label or function(path)).
# The first matching rule wins; a label of None excludes the file.
SOURCES = [
    # ----------------------------------------------------------------------------------- train
    ("github:dcsan/imagen", "train", "not stated", [(r"^output/renders/", dcsan)], "dcsan"),
    ("github:CompVis/stable-diffusion", "train", "CreativeML Open RAIL-M", [
        (r"^assets/(a-painting-of-a-fire|a-photograph-of-a-fire|a-shirt-with-a-fire-printed-on-it|a-shirt-with-the-inscription-'fire'|a-watercolor-painting-of-a-fire|fire|the-earth-is-on-fire,-oil-on-canvas|birdhouse|txt2img-preview)\.png$", g("ldm", "latent-diffusion", "grid")),
        (r"^assets/txt2img-convsample\.png$", g("ldm", "latent-diffusion")),
        (r"^assets/stable-samples/txt2img/merged-\d+\.png$", g("sd-1.x", "latent-diffusion", "grid")),
        (r"^assets/stable-samples/txt2img/\d+\.png$", g("sd-1.x", "latent-diffusion")),
        (r"^assets/stable-samples/img2img/mountains-\d\.png$", g("sd-1.x", "latent-diffusion", "img2img")),
    ], None),
    ("github:Stability-AI/stablediffusion", "train", "MIT", [
        (r"^assets/stable-samples/txt2img/768/merged-\d+\.png$", g("sd-2.x", "latent-diffusion", "grid")),
        (r"^assets/stable-samples/txt2img/merged-\d+\.png$", g("sd-2.x", "latent-diffusion", "grid")),
    ], None),
    ("github:Stability-AI/generative-models", "train", "MIT (code)", [
        (r"^assets/000\.jpg$", g("unknown-generator", "latent-diffusion", "grid")),
        (r"^assets/turbo_tile\.png$", g("sdxl-turbo", "latent-diffusion", "grid")),
    ], None),
    ("github:Kwai-Kolors/Kolors", "train", "Apache-2.0", [
        (r"_condition\.jpg$", None),
        (r"^controlnet/outputs/.*_sdxl\.jpg$", g("sdxl", "latent-diffusion", "controlnet")),
        (r"^controlnet/outputs/.*\.jpg$", g("kolors", "latent-diffusion", "controlnet")),
        (r"^dreambooth/ktxl_test_image\.png$", g("kolors", "latent-diffusion")),
        (r"^imgs/zl8\.png$", g("kolors", "latent-diffusion")),
        (r"^inpainting/asset/\d_kolors\.png$", g("kolors", "latent-diffusion", "partial")),
        (r"^inpainting/asset/\d_sdxl\.png$", g("sdxl", "latent-diffusion", "partial")),
        (r"^ipadapter/asset/\d_kolors_ip_result\.jpg$", g("kolors", "latent-diffusion")),
        (r"^ipadapter/asset/\d_mj_cw_result\.png$", g("midjourney", "commercial-unknown")),
        (r"^ipadapter/asset/\d_sdxl_ip_result\.jpg$", g("sdxl", "latent-diffusion")),
        (r"^ipadapter_FaceID/assets/image\d_res\.png$", g("kolors", "latent-diffusion")),
    ], None),
    ("github:Stability-AI/StableCascade", "train", "MIT", [
        (r"^figures/(collage_\d|fernando|text-to-image-example-penguin)\.jpg$", g("stable-cascade", "latent-diffusion", "grid")),
    ], None),
    ("github:davisking/dlib", "train", "BSL-1.0", [
        (r"^examples/faces/", r("face")),
        (r"^examples/johns/", r("face,resized")),
    ], None),
    ("github:majedelhelou/denoising_datasets", "train", "not stated", [
        # Set14/Set12/Set5 classics that other sources (KAIR set12, Debian opencv/skimage) also hold, and
        # Set14's drawing (comic) and slide (ppt3): left out so no picture straddles splits.
        (r"^CSet14/(baboon|barbara|lenna|monarch|pepper|man|comic|ppt3)\.", None),
        (r"^CSet5/butterfly\.", None),
        (r"^(CSet14|CSet5|CBSD68|CSun_Hays80)/", r()),
        (r"^CUrban100/", r("texture")),
    ], None),
    ("github:Li-Chongyi/Zero-DCE", "train", "not stated", [
        (r"^Zero-DCE_code/data/test_data/DICM/", r("low_light")),
    ], None),
    ("github:weichen582/RetinexNet", "train", "MIT", [
        (r"^data/eval/low/", r("low_light,indoor")),
    ], None),
    ("github:mahmoudnafifi/WB_sRGB", "val", "CC BY-NC-SA 4.0", [
        (r"^example_images/figure3", None),
        (r"^example_images/.*(Rhett_Sutphin_CC_BY_2\.0_+\.|chispita_666|Racoon|Alpha_CC|Thirteen_Of_Clubs|Isadora)", r("colour_cast,low_light")),
        (r"^example_images/", r("colour_cast")),
    ], None),
    ("github:jiaxi-jiang/FBCNN", "train", "Apache-2.0", [
        (r"^testsets/Real/[123]\.jpg$", None),  # cartoons and a meme drawing, not photographs
        (r"^testsets/Real/", r("heavy_jpeg")),
        (r"^testsets/LIVE1_gray/", r("grayscale")),
    ], None),
    ("github:XLabs-AI/x-flux", "train", "Apache-2.0", [
        # LoRA and ControlNet outputs of FLUX.1-dev; the canny/depth/hed strips carry their condition maps.
        (r"^assets/readme/examples/(furry\d|result_\d+|picture-[567]-rev1)\.png$", g("flux.1-dev", "latent-diffusion")),
    ], None),
    ("github:cs-chan/Exclusively-Dark-Image-Dataset", "train", "BSD-style (Chee Seng Chan 2018)", [
        (r"^SPIC/", r("low_light,night")),
    ], None),
    ("github:joone-org/SentioNova", "train", "CC BY-NC-ND 4.0", [
        # "Intro to MidJourney: a photobook of AI-generated imagery" (2023): the book's plates.
        (r"^curriculum/MJ-9798851707100/Images/(cover|title)\.jpg$", None),  # lettering on the plate
        (r"^curriculum/MJ-9798851707100/Images/[^/]+\.jpg$", g("midjourney", "commercial-unknown", "resized")),
        (r"^curriculum/MJ-9798851707100/Images/v2/(source_images|v2dot1)/[^/]+\.png$", g("midjourney", "commercial-unknown")),
    ], None),
    ("github:JingyunLiang/SwinIR", "train", "Apache-2.0", [
        # RealSRSet: real low-quality photos. Drawings (0014, 0030, comic*), the slide (ppt3), the unclear
        # "painting", and the butterflies (degraded copies of the Set14 monarch that KAIR's test set holds) out.
        (r"^testsets/RealSRSet\+5images/(0014|0030|comic\d|ppt3|painting|butterfly2?)\.", None),
        (r"^testsets/RealSRSet\+5images/(Lincoln|oldphoto\d)\.", r("old_photo,resized")),
        (r"^testsets/RealSRSet\+5images/dped_crop\d+\.", r("phone,resized")),
        (r"^testsets/RealSRSet\+5images/pattern\.", r("printed_pattern,resized")),
        (r"^testsets/RealSRSet\+5images/", r("resized,heavy_jpeg")),
    ], None),
    ("github:cszn/SCUNet", "train", "Apache-2.0", [
        (r"^testsets/RNI15/(Pattern\d|Postcards)\.", r("printed_pattern,noise")),
        (r"^testsets/RNI15/", r("noise")),
        (r"^testsets/(real3|real9)/", r("noise")),
    ], None),
    ("github:xinntao/Real-ESRGAN", "train", "BSD-3-Clause", [
        (r"^inputs/(00017_gray|wolf_gray)\.", r("grayscale,heavy_jpeg")),
    ], None),
    ("github:megvii-research/NAFNet", "train", "MIT", [
        (r"^demo/blurry\.jpg$", r("blur")),
        (r"^demo/noisy\.png$", r("phone,noise,document")),
        (r"^demo/lr_img_[lr]\.png$", r("resized,indoor")),
    ], None),
    # ------------------------------------------------------------------------------------- val
    ("github:SupaGruen/StableDiffusion-CheatSheet", "val", "MIT", [
        (r"^img/[^/]+\.webp$", g("sd-1.5", "latent-diffusion", "grid,artwork")),
    ], "every6"),
    ("github:ML72/AI-Image-Classifier-Playground", "val", "MIT", [
        (r"^public/images/ai/gan_", g("unknown-generator", "gan")),
        (r"^public/images/ai/diffusion", g("unknown-generator", "diffusion-unknown")),
        (r"^public/images/real/people_", r("face")),
        (r"^public/images/real/", r()),
    ], None),
    ("github:facebookresearch/DiT", "val", "CC BY-NC 4.0", [
        (r"^visuals/sample_grid_\d\.png$", g("dit", "latent-diffusion", "grid")),
    ], None),
    ("github:POSTECH-CVLab/PyTorch-StudioGAN", "val", "MIT", [
        (r"^docs/figures/(AFHQ_|Anime_|StudioGAN_generated_images|boat|fox|generated_images1|interpolated_images)\.", g("unknown-generator", "gan", "grid")),
    ], None),
    ("github:ageitgey/face_recognition", "test", "MIT", [
        (r"^(examples|tests/test_images)/.*\.(jpe?g|png)$", r("face")),
    ], None),
    ("github:sczhou/CodeFormer", "val", "S-Lab License 1.0", [
        (r"^inputs/cropped_faces/", r("face,resized,blur")),
        (r"^inputs/gray_faces/", r("face,grayscale,old_photo")),
        (r"^inputs/whole_imgs/", r("face,resized")),
    ], None),
    ("github:TencentARC/GFPGAN", "val", "Apache-2.0 (GFPGAN licence)", [
        (r"^inputs/cropped_faces/", r("face,resized")),
        (r"^inputs/whole_imgs/", r("face,old_photo")),
    ], None),
    ("github:fh2019ustc/DocTr", "val", "all rights reserved (Hao Feng)", [
        (r"^distorted/", r("document")),
    ], None),
    ("github:mahmoudnafifi/Exposure_Correction", "val", "CC BY-NC-SA 4.0", [
        (r"^example_images/a\d+-.*_N1\.5\.", r("exposure,low_light")),
        (r"^example_images/a\d+-.*_P1(\.5)?\.", r("exposure,overexposed")),
        (r"^example_images/", r("exposure")),
    ], None),
    ("github:mingukkang/GigaGAN", "val", "not stated", [
        # The project page's text-to-image samples (five per prompt); captioned panels and upsampler pairs left out.
        (r"^static/images/(alps|bread|candle|car|castle|galaxy|light|newton|sea)[0-4]\.jpg$", g("gigagan", "gan")),
    ], None),
    ("github:fh2019ustc/DocScanner", "val", "all rights reserved (Hao Feng)", [
        (r"^distorted/", r("document")),
    ], None),
    # ------------------------------------------------------------------------------------ test
    ("github:comfyanonymous/ComfyUI_examples", "test", "not stated", [
        # Outputs of each model's example workflow (the PNGs embed the workflow; use the pixels only).
        (r"^sdxl/sdxl_revision_", None),  # screenshots of the node graph
        (r"^aura_flow/.*\.png$", g("auraflow", "latent-diffusion")),
        (r"^chroma/.*\.png$", g("chroma", "latent-diffusion")),
        (r"^cosmos_predict2/.*_t2i_example\.png$", g("cosmos-predict2", "latent-diffusion")),
        (r"^flux/flux_fill_inpaint_example\.png$", g("flux.1", "latent-diffusion", "partial")),
        (r"^flux/flux_kontext_example(_comic)?\.(png|webp)$", g("flux.1-kontext", "latent-diffusion", "partial")),
        (r"^flux/flux_(canny_model|controlnet|depth_lora)_example\.png$", g("flux.1", "latent-diffusion", "controlnet")),
        (r"^flux/flux_(dev|dev_checkpoint|schnell|schnell_checkpoint|redux_model)_example\.png$", g("flux.1", "latent-diffusion")),
        (r"^flux2/flux2_example\.png$", g("flux.2", "latent-diffusion")),
        (r"^hidream/hidream_(dev|full)_example\.png$", g("hidream-i1", "latent-diffusion")),
        (r"^hidream/hidream_e1.*\.png$", g("hidream-e1", "latent-diffusion", "partial")),
        (r"^hunyuan_dit/.*\.png$", g("hunyuan-dit", "latent-diffusion")),
        (r"^lcm/lcm_basic_example\.png$", g("latent-consistency", "latent-diffusion")),
        (r"^lumina2/.*\.png$", g("lumina-2", "latent-diffusion")),
        (r"^omnigen/omnigen2_example\.png$", g("omnigen2", "latent-diffusion")),
        (r"^qwen_image/qwen_image_basic_example\.png$", g("qwen-image", "latent-diffusion")),
        (r"^qwen_image/qwen_image_edit.*\.png$", g("qwen-image-edit", "latent-diffusion", "partial")),
        (r"^sd3/sd3\.5_large_canny_controlnet_example\.png$", g("sd3.5", "latent-diffusion", "controlnet")),
        (r"^sd3/sd3\.5_.*\.png$", g("sd3.5", "latent-diffusion")),
        (r"^sd3/sd3_controlnet_example\.png$", g("sd3", "latent-diffusion", "controlnet")),
        (r"^sd3/sd3_.*\.png$", g("sd3", "latent-diffusion")),
        (r"^sdxl/sdxl_(simple|refiner_prompt)_example\.png$", g("sdxl", "latent-diffusion")),
        (r"^sdturbo/sdxlturbo_example\.png$", g("sdxl-turbo", "latent-diffusion")),
        (r"^stable_cascade/stable_cascade__text_to_image\.png$", g("stable-cascade", "latent-diffusion")),
        (r"^stable_cascade/stable_cascade__canny_controlnet\.png$", g("stable-cascade", "latent-diffusion", "controlnet")),
        (r"^stable_cascade/stable_cascade__image_(remixing|remixing_multiple|to_image)\.png$", g("stable-cascade", "latent-diffusion", "img2img")),
        (r"^stable_cascade/stable_cascade__inpaint_controlnet\.png$", g("stable-cascade", "latent-diffusion", "partial")),
        (r"^z_image/z_image_turbo_example\.png$", g("z-image-turbo", "latent-diffusion")),
    ], None),
    ("github:FoundationVision/Infinity", "test", "MIT", [
        (r"^assets/2b_(20b|8b)/\d[lr]\.(jpg|webp)$", g("infinity", "autoregressive")),
    ], None),
    ("github:jyoung105/yetter", "test", "not stated", [
        (r"/flux-1-dev/results/.*\.(png|webp|jpe?g)$", g("flux.1-dev", "latent-diffusion")),
        (r"/qwen-image/results/.*\.(png|webp|jpe?g)$", g("qwen-image", "latent-diffusion")),
        (r"/flux-1-kontext-dev/results/.*\.(png|webp|jpe?g)$", g("flux.1-kontext", "latent-diffusion", "partial")),
        (r"^example_inputs/edit-images/image_0[1345]\.", r("phone")),
        (r"^example_inputs/edit-images/image_09\.", r("phone,indoor")),
    ], None),
    ("github:black-forest-labs/flux", "test", "Apache-2.0", [
        (r"^assets/(dev_grid|grid|schnell_grid)\.jpg$", g("flux.1", "latent-diffusion", "grid")),
    ], None),
    ("github:PixArt-alpha/PixArt-alpha", "test", "Apache-2.0 (code)", [
        (r"^asset/images/controlnet/0_\d\.png$", g("pixart-alpha", "latent-diffusion", "controlnet")),
        (r"^asset/images/more-samples1\.png$", g("pixart-alpha", "latent-diffusion", "grid")),
    ], None),
    ("github:PixArt-alpha/PixArt-sigma", "test", "Apache-2.0 (code)", [
        (r"^asset/imgs/lora_512\.png$", g("pixart-sigma", "latent-diffusion")),
    ], None),
    ("github:Tencent/HunyuanDiT", "test", "Tencent Hunyuan Community License", [
        (r"^app/default\.png$", g("hunyuan-dit", "latent-diffusion")),
        (r"^comfyui/hunyuan_dit_1\.2_(controlnet_canny_example|example)\.png$", g("hunyuan-dit", "latent-diffusion")),
        (r"^controlnet/asset/output/", g("hunyuan-dit", "latent-diffusion", "controlnet")),
        (r"^ipadapter/asset/output/", g("hunyuan-dit", "latent-diffusion")),
        (r"^lora/asset/porcelain/inference/", g("hunyuan-dit", "latent-diffusion")),
    ], None),
    ("github:openai/dalle-2-preview", "test", "not stated", [
        (r"^assets/Model2_.*inpaint", g("dalle-2", "commercial-unknown", "partial")),
        (r"^assets/Model2_", g("dalle-2", "commercial-unknown")),
        (r"^assets/0401_a_photo_of_a_personal_assistant\.jpg$", g("dalle-2", "commercial-unknown", "grid")),
    ], None),
    ("github:ai-forever/Kandinsky-2", "test", "Apache-2.0", [
        (r"^content/einstein\.png$", g("kandinsky-2", "latent-diffusion")),
        (r"^content/kand_22\.png$", g("kandinsky-2", "latent-diffusion", "grid")),
    ], None),
    ("github:ai-forever/Kandinsky-3", "test", "Apache-2.0", [
        (r"^assets/(butterfly_effect|photo_\d+|title)\.", g("kandinsky-3", "latent-diffusion")),
    ], None),
    ("github:deep-floyd/IF", "test", "DeepFloyd IF licence (code: modified MIT)", [
        (r"^pics/dream-(I|II|III)\.", g("deepfloyd-if", "pixel-diffusion", "grid")),
        (r"^pics/(main|nabla)\.", g("deepfloyd-if", "pixel-diffusion", "grid")),
    ], None),
    ("github:VectorSpaceLab/OmniGen", "test", "MIT", [
        (r"^imgs/(demo_cases|docs_img)/(edit|entity|id2|id3|reasoning|same_pose|skeletal2img|t2i_woman_with_book)\.", g("omnigen", "latent-diffusion")),
        (r"^imgs/(demo_cases|docs_img)/(dress|emma|AI_Pioneers)\.", r("face")),
    ], None),
    ("github:Alpha-VLLM/Lumina-T2X", "test", "MIT", [
        (r"^assets/images/demo_image\.png$", g("lumina-next", "latent-diffusion", "grid")),
    ], None),
    ("github:ajbrock/BigGAN-PyTorch", "test", "MIT", [
        (r"^imgs/(DeepSamples|DogBall|header_image|interp_sample)\.", g("biggan", "gan", "grid")),
    ], None),
    ("github:rosinality/stylegan2-pytorch", "test", "MIT", [
        (r"^doc/stylegan2-church-config-f\.png$", g("stylegan2", "gan", "grid")),
        (r"^factor_index-13_degree-5\.0\.png$", g("stylegan2", "gan", "grid")),
    ], None),
    ("github:autonomousvision/stylegan-xl", "test", "MIT", [
        (r"^media/teaser\.png$", g("stylegan-xl", "gan", "grid")),
    ], None),
    ("github:NVlabs/stylegan", "test", "CC BY-NC 4.0", [
        (r"^stylegan-teaser\.png$", g("stylegan", "gan", "grid")),
    ], None),
    ("github:NVlabs/stylegan2", "test", "Nvidia Source Code License-NC", [
        (r"^docs/stylegan2-teaser-1024x256\.png$", g("stylegan2", "gan", "grid")),
    ], None),
    ("github:tkarras/progressive_growing_of_gans", "test", "CC BY-NC 4.0", [
        (r"^representative_image_512x256\.png$", g("progan", "gan", "grid")),
    ], None),
    ("github:cszn/KAIR", "test", "MIT", [
        (r"^testsets/real_faces/", r("face,resized")),
        (r"^testsets/set12/", r("grayscale")),
    ], None),
]

# ------------------------------------------------------------------ more ordinary real photographs
# Issue 31, second pass: the real class of `train` was mostly denoising, low-light, JPEG-artifact and dlib
# sets, so a detector could learn "which source" instead of "camera or generator". These sources add
# ordinary camera photographs (objects, animals, people, streets, rooms, landscapes, food). Each was looked
# at as contact sheets; renders, graphics, composites, paintings and edited copies are left out by rule.
# They come after the sources above and the Debian test set, and every image is also compared with all
# images kept before it by a 64-bit difference hash: one within NEAR_DUP bits of an image of another
# source is dropped (excluded.txt names the match), so no picture of `test` reaches `train`/`val` at another
# size or encoding. Each source is wholly in one split (about 75/25 by image count), never in `test`.

IMAGENET_LEFT_OUT = r"(swab|Indian_cobra|book_jacket|mobile_home|web_site|menu|crossword_puzzle)"

def imagenet(path):
    """EliSchwartz/imagenet-sample-images: one ImageNet-1k validation image per class. About a quarter of
    the classes are taken, chosen by WordNet id (id % 4 == 0) so the choice does not depend on the others;
    an ad graphic (swab), framed or vignetted composites (Indian_cobra, mobile_home) and a book cover
    (book_jacket) are left out."""
    m = re.match(r"^n(\d{8})_(.+)\.JPEG$", path)
    if not m or int(m.group(1)) % 4 or re.search(IMAGENET_LEFT_OUT, m.group(2)):
        return None
    tags = ["resized"]  # web-sized (Flickr and search-engine) copies, mostly 500 px
    if re.search(r"(comic_book|packet|toyshop|shoe_shop|cinema|bookcase)", m.group(2)):
        tags.append("printed_pattern")
    return r(",".join(tags))

REAL_SOURCES = [
    # ------------------------------------------------------------------------------------------- train
    ("github:drewnoakes/metadata-extractor-images", "train", "free to use, as the collection states (contributors' photos)", [
        # Sample files of the metadata-extractor project: one photo (mostly straight from the device, with
        # its EXIF) per camera, phone, scanner or app; only those at least 400 px on the short side. Left
        # out: thermal (FLIR) frames, screenshots and logos (Issue 80/173/204/258, Pentax ist D, Panasonic
        # Lumix DMC-LX7, GS1, icon sets, WebP test art), Jupiter through a telescope (Issue 600), flat or
        # black frames (Sony DSC-P12, User Comment Encoding), index sheets (Olympus E-20, FujiFilm
        # MX-2900Zoom), a photo of a drawing (Canon Powershot A2500), Photoshop scans of prints, and the
        # ImageTestSuite folders (web images of unknown origin gathered to test decoders).
        (r"(FLIR|Canon Powershot A2500|FujiFilm MX-2900Zoom|ImageTestSuite|Issue (80|173|204|258|600)|"
         r"Panasonic Lumix DMC-LX7|Pentax ist D|Photoshop|Sony DSC-P12|User Comment Encoding|Olympus E-20|"
         r"BlazRobar|webpvp8|corrupted)", None),
        (r"Bushnell", r("night,grayscale")),  # a trail camera's infrared night frame
        (r"Issue 356", r("old_photo")),
        (r"(iPhone|Blackberry|HTC|Nexus|Motorola|Nokia|Oppo|Samsung (GT|SM)|Sony D5403|Sony Ericsson|Android|Kyocera)", r("phone")),
        (r"^(jpg|png|webp)/", r()),
    ], "min:400"),
    ("github:ianare/exif-samples", "train", "CC BY-SA 4.0 (contributed images, per README)", [
        # Camera samples for an EXIF reader (many repeat metadata-extractor's: the near-duplicate check drops
        # them). Left out: orientation/ (one photo rotated 8 ways with printed labels), tests/ and invalid/
        # (broken files, a painting, a grey card, an index sheet), exif-org/fujifilm-dx10 (an index sheet).
        (r"^jpg/(orientation|tests|invalid)/", None),
        (r"^jpg/exif-org/fujifilm-dx10\.jpg$", None),
        (r"^jpg/corrupted\.jpg$", None),  # a truncated file kept to test error handling
        (r"^jpg/mobile/", r("phone")),
        (r"^jpg/", r()),
    ], "min:400"),
    ("github:EliSchwartz/imagenet-sample-images", "train", "not stated (ImageNet images: research use)", [
        (r"^n\d{8}_[^/]+\.JPEG$", imagenet),
    ], None),
    ("github:BIDS/BSDS500", "train", "not stated (BSDS: research use; Corel images)", [
        # The 200 images that BSDS500 added to BSDS300 (its `test/`, 481x321 Corel film scans). `train/` and
        # `val/` are BSDS300, whose test half holds CBSD68 (already in train, via denoising_datasets).
        (r"^BSDS500/data/images/test/\d+\.jpg$", r()),
    ], None),
    ("github:MohamedBakrAli/Kodak-Lossless-True-Color-Image-Suite", "train", "unrestricted use (Kodak, per r0k.us)", [
        # kodim01-24 (PhotoCD film scans, 768x512). 19 are the pictures of LIVE1 (grey, in FBCNN, train): the
        # near-duplicate check leaves those out, so 5 are taken.
        (r"^PhotoCD_PCD0992/\d\d\.png$", r()),
    ], None),
    ("debian:python3-sklearn", "train", "BSD-3-Clause (package); images CC BY (sklearn/datasets/images/README.txt)", [
        (r"/sklearn/datasets/images/(china|flower)\.jpg$", r()),
    ], None),
    ("debian:digikam-data", "train", "GPL-2+ (package)", [
        (r"/digikam/about/images/body-background\.jpg$", r()),  # a 4032x3024 landscape, as shot
    ], None),
    ("debian:python-matplotlib-data", "train", "matplotlib licence (package); grace_hopper.jpg public domain (US Navy)", [
        (r"/sample_data/grace_hopper\.jpg$", r("face")),
    ], None),
    # --------------------------------------------------------------------------------------------- val
    ("github:CMU-Perceptual-Computing-Lab/openpose", "val", "OpenPose academic licence (images: COCO, Flickr)", [
        (r"^examples/media/COCO_val2014_000000000589\.jpg$", r("face,night")),
        (r"^examples/media/COCO_val2014_000000000328\.jpg$", r("face,grayscale")),
        (r"^examples/media/COCO_val2014_000000000(241|294|338|428|459|536|623)\.jpg$", r("face,indoor")),
        (r"^examples/media/COCO_val2014_\d+\.jpg$", r("face")),
    ], None),
    ("debian:kphotoalbum", "val", "GPL-2+ (package)", [
        # The demo album: a family's 2000s snapshots (800x600). qt-logo is a logo.
        (r"/demo/qt-logo\.jpg$", None),
        (r"/demo/(anne_helene|bar55|bar55_2|donna|donna_2|jesper|jesper_2|wayne)\.jpg$", r("face,resized")),
        (r"/demo/(pool|pool_2)\.jpg$", r("face,indoor,resized")),
        (r"/demo/sunset\.jpg$", r("low_light,resized")),
        (r"/demo/[^/]+\.jpg$", r("resized")),
    ], None),
    ("debian:tuxpaint-data", "val", "GPL-2+ (package)", [
        # Tux Paint's photo templates (nature, sea, a lighthouse, a wool mill); the starters are drawings.
        (r"/tuxpaint/templates/(burnt_bark|mossy_bark|mudstone|rocks|mossy_log)\.jpg$", r("texture")),
        (r"/tuxpaint/templates/trees_at_dusk\.jpg$", r("low_light")),
        (r"/tuxpaint/templates/wool_mill_machine\.jpg$", r("indoor")),
        (r"/tuxpaint/templates/[^/]+\.jpg$", r()),
    ], None),
    ("debian:scribus-template", "val", "GPL-2+ (package)", [
        # Photos placed in the brochure, calendar and menu templates; brightness.jpg is a flat grey card.
        (r"/templates/br2/(halfmoon|moon)\.jpg$", r("night")),
        (r"/templates/cal2/moon\.jpg$", r("night")),
        (r"/templates/br2/(nature|sunset)\.jpg$", r()),
        (r"/templates/menu2/pizza\.jpg$", r()),
        (r"/templates/menu1/teriyaki\.png$", r("resized")),
        (r"/templates/nl1-bw/kites-bw\.png$", r("grayscale")),
    ], None),
    ("debian:palapeli-data", "val", "GPL-2+ (package)", [
        # The default puzzles (castle, bridge at night, citrus, bee, chameleon); backgrounds are textures.
        (r"/palapeli/collection/cincinnati-bridge\.jpg$", r("night")),
        (r"/palapeli/collection/[^/]+\.jpg$", r()),
    ], None),
    ("github:serengil/deepface", "val", "MIT", [
        # Test photos of public figures (press and event photos, 400-1500 px). img11_reflection is a mirrored copy.
        (r"^tests/unit/dataset/img11_reflection\.jpg$", None),
        (r"^tests/(unit|integration)/dataset/[^/]+\.jpg$", r("face")),
    ], None),
    ("github:Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB", "val", "MIT", [
        # Group photos for the face detector; 22.jpg is a Second Life render (an ad), left out.
        (r"^imgs/22\.jpg$", None),
        (r"^imgs/\d+\.jpg$", r("face")),
    ], None),
    ("github:luanfujun/deep-photo-styletransfer", "val", "not stated (repository); photos from the web", [
        # The 60 input photos (streets, rooms, landscapes, objects, a portrait). Left out: in18 (a 3D render of
        # a statue), in33, in26, in36, in16 (product shots on plain grounds, possibly renders), in48/in49 (a
        # composited tree-on-hill picture), and in4/in12/in22/in24 (repeats of in3/in11/in9/in21). The style
        # targets are heavily edited (HDR, infrared, a painting) and the outputs are transfers: not used.
        (r"^examples/input/in(18|33|26|36|16|48|49|4|12|22|24)\.png$", None),
        (r"^examples/input/in11\.png$", r("face,resized")),
        (r"^examples/input/in19\.png$", r("night,resized")),
        (r"^examples/input/in(25|27|30|34|35|38|39|40|41|42|45)\.png$", r("indoor,resized")),
        (r"^examples/input/in\d+\.png$", r("resized")),
    ], None),
    ("debian:lxqt-themes", "val", "CC BY-SA 3.0 (wallpapers/License)", [
        # Photographic wallpapers (stefonarch, Kenneth Wimer); the others are logos and abstract renders.
        (r"/lxqt/wallpapers/(Butterfly-Kenneth-Wimer|after-the-rain|fog|this-is-not-windows)\.jpg$", r("wallpaper")),
        (r"/lxqt/wallpapers/(Valendas|appleflower|beam|butterfly|cloud|drop|flowers)\.png$", r("wallpaper")),
    ], None),
    ("debian:mrpt-common", "val", "BSD-3-Clause (package)", [
        (r"/mrpt/datasets/stereo-calib/\d_(left|right)\.jpg$", r("printed_pattern,indoor")),
    ], None),
]
NEAR_DUP = 5  # bits of 64; at 6 and more, unrelated flat or dark pictures start to match

# The 83 real photographs the suite already uses (scripts/eval/fetch-photos.sh), all in test.
DEB_DIRS = {
    "python3-skimage": "usr/lib/python3/dist-packages/skimage/data",
    "mate-backgrounds": "usr/share/backgrounds/mate/nature",
    "lomiri-wallpapers-16.04": "usr/share/backgrounds",
    "lomiri-wallpapers-20.04": "usr/share/backgrounds",
    "opencv-doc": "usr/share/doc/opencv-doc/examples/data",
    "plasma-workspace-wallpapers": "usr/share/wallpapers",
}
DEB_LICENCE = {
    "python3-skimage": "BSD-3-Clause (package); per-image notes in skimage/data/README",
    "mate-backgrounds": "GPL-2+ (package)",
    "lomiri-wallpapers-16.04": "CC BY-SA (package)",
    "lomiri-wallpapers-20.04": "CC BY-SA (package)",
    "opencv-doc": "Apache-2.0 (package)",
    "plasma-workspace-wallpapers": "LGPL/CC BY-SA (package)",
}
DEB_TAGS = {
    "page.png": "document,grayscale", "text.png": "document,grayscale", "clock_motion.png": "blur,grayscale",
    "camera.png": "grayscale", "moon.png": "grayscale,night", "coins.png": "grayscale", "hubble_deep_field.jpg": "night",
    "retina.jpg": "medical", "brick.png": "texture,grayscale", "grass.png": "texture,grayscale", "gravel.png": "texture,grayscale",
    "astronaut.png": "face", "messi5.jpg": "face", "licenseplate_motion.jpg": "blur", "text_defocus.jpg": "document,blur",
    "text_motion.jpg": "document,blur", "sudoku.png": "printed_pattern,document", "graf1.png": "printed_pattern",
    "box.png": "grayscale", "box_in_scene.png": "grayscale", "board.jpg": "printed_pattern", "aloeL.jpg": "indoor",
    "Blinds.jpg": "texture", "Wood.jpg": "texture", "RainDrops.jpg": "texture", "analogpattern_by_Peter_Nerlich.jpg": "texture",
    "summer_1am": "night", "DarkestHour": "low_light", "EveningGlow": "low_light", "sunset_by_Aitzol_Berasategi.jpg": "low_light",
}

def deb_files():
    txt = open(os.path.join(ROOT, "scripts/eval/fetch-photos.sh")).read()
    out = []
    for pkg, files in re.findall(r"\[([a-z0-9.+-]+)\]=\"([^\"]+)\"", txt):
        for f in files.split():
            out.append((pkg, f))
    return out


def git_dir(repo):
    d = os.path.join(MIRROR, repo.replace("/", "+"), "repo")
    return os.path.join(d, ".git") if os.path.isdir(os.path.join(d, ".git")) else d


def measure(data):
    with tempfile.NamedTemporaryFile(suffix=".img") as t:
        t.write(data)
        t.flush()
        try:
            out = subprocess.run(["identify", "-format", "%m %w %h\n", t.name + "[0]"], capture_output=True, text=True, timeout=60).stdout.split()
            fmt, w, h = out[0], int(out[1]), int(out[2])
            sd = float(subprocess.run(["convert", t.name + "[0]", "-resize", "64x64", "-colorspace", "gray", "-format", "%[fx:standard_deviation]", "info:"], capture_output=True, text=True, timeout=60).stdout or 1)
        except Exception:
            return None
    return fmt.lower().replace("jpeg", "jpeg"), w, h, sd


def dhash(data):
    """64-bit difference hash (9x8 grey thumbnail, left > right), for near-duplicates at any size."""
    with tempfile.NamedTemporaryFile(suffix=".img") as t:
        t.write(data)
        t.flush()
        px = subprocess.run(["convert", t.name + "[0]", "-colorspace", "gray", "-resize", "9x8!", "-depth", "8", "gray:-"],
                            capture_output=True, timeout=60).stdout
    if len(px) != 72:
        return None
    v = 0
    for y in range(8):
        for x in range(8):
            v = (v << 1) | (px[y * 9 + x] > px[y * 9 + x + 1])
    return v


def deb_root(pkg):
    """The package unpacked in the cache build.ts uses (apt-get download + dpkg -x; nothing is installed)."""
    root = os.path.join(DEBCACHE, pkg)
    if not os.path.exists(os.path.join(root, ".version")):
        os.makedirs(DEBCACHE, exist_ok=True)
        subprocess.run(["apt-get", "download", pkg], cwd=DEBCACHE, check=True, capture_output=True)
        deb = sorted(f for f in os.listdir(DEBCACHE) if f.startswith(pkg + "_") and f.endswith(".deb"))[-1]
        os.makedirs(root, exist_ok=True)
        subprocess.run(["dpkg", "-x", os.path.join(DEBCACHE, deb), root], check=True)
        ver = subprocess.run(["dpkg-deb", "-f", os.path.join(DEBCACHE, deb), "Version"], capture_output=True, text=True).stdout.strip()
        open(os.path.join(root, ".version"), "w").write(ver + "\n")
    return root


def spread(items, n):
    """n items spread evenly over the sorted list (deterministic)."""
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def main():
    rows, seen, notes = [], {}, []
    for source, split, licence, rules, limit in SOURCES:
        repo = source.split(":", 1)[1]
        gd = git_dir(repo)
        if not os.path.isdir(gd):
            sys.exit(f"missing snapshot {repo}: fetch github:{repo} with the search tool")
        commit = subprocess.run(["git", f"--git-dir={gd}", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        listing = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "-l", "-z", "HEAD"], capture_output=True).stdout.decode().split("\0")
        chosen = []
        for line in listing:
            if not line:
                continue
            meta, path = line.split("\t", 1)
            mode, typ, sha, size = meta.split()
            if typ != "blob" or not IMG.search(path):
                continue
            for rx, label in rules:
                if re.search(rx, path):
                    if callable(label):
                        label = label(path)
                    if label:
                        chosen.append((path, sha, size, label))
                    break
        if limit == "every6":
            chosen = sorted(chosen)[::6]
        if limit == "dcsan":
            by = {}
            for c in sorted(chosen):
                by.setdefault(c[3][1], []).append(c)
            chosen = []
            for gen, items in sorted(by.items()):
                n = next(v[2] for v in DCSAN.values() if v[0] == gen)
                chosen += spread(items, n * 2)  # twice the quota: blanks are dropped below, then trimmed
        kept = {}
        for path, sha, size, (cls, gen, fam, tags) in chosen:
            if size in ("-", "BAD"):
                notes.append(f"{source} {path}: absent from the snapshot (>= 4 MiB or LFS)")
                continue
            data = subprocess.run(["git", f"--git-dir={gd}", "cat-file", "blob", sha], capture_output=True).stdout
            if not data:
                notes.append(f"{source} {path}: absent from the snapshot (>= 4 MiB or LFS)")
                continue
            if data.startswith(b"version https://git-lfs"):
                notes.append(f"{source} {path}: LFS pointer")
                continue
            m = measure(data)
            if not m:
                notes.append(f"{source} {path}: not decodable")
                continue
            fmt, w, h, sd = m
            if min(w, h) < 128:
                notes.append(f"{source} {path}: {w}x{h} under 128 px")
                continue
            if cls == "generated" and sd < 0.03:
                notes.append(f"{source} {path}: flat/blank render (sd {sd:.3f})")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                notes.append(f"{source} {path}: same bytes as {seen[digest]}")
                continue
            seen[digest] = f"{source} {path}"
            row = dict(source=source, commit=commit, path=path, sha256=digest, cls=cls, generator=gen, family=fam,
                       licence=licence, tags=tags or "-", split=split, width=w, height=h, format=fmt, bytes=len(data),
                       dh=dhash(data))
            kept.setdefault(gen, []).append(row)
        for gen, items in kept.items():
            if limit == "dcsan":
                quota = next(v[2] for v in DCSAN.values() if v[0] == gen)
                items = spread(items, quota)
            rows += items
    # Debian packages
    for pkg, f in deb_files():
        root = os.path.join(DEBCACHE, pkg)
        ver = open(os.path.join(root, ".version")).read().strip()
        src = os.path.join(root, DEB_DIRS[pkg], f)
        rel = os.path.join(DEB_DIRS[pkg], f)
        if os.path.isdir(src):
            imgs = sorted(x for x in os.listdir(os.path.join(src, "contents/images")) if x.startswith("2560x"))
            rel = os.path.join(rel, "contents/images", imgs[0])
            src = os.path.join(root, rel)
        data = open(src, "rb").read()
        fmt, w, h, _ = measure(data)
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            notes.append(f"debian:{pkg} {rel}: same bytes as {seen[digest]}")
            continue
        seen[digest] = f"debian:{pkg} {rel}"
        tags = DEB_TAGS.get(f, "")
        if pkg in ("mate-backgrounds", "lomiri-wallpapers-16.04", "lomiri-wallpapers-20.04", "plasma-workspace-wallpapers"):
            tags = ",".join(x for x in (tags, "wallpaper") if x)
        if pkg == "opencv-doc" and re.match(r"(left|right)\d+\.jpg", f):
            tags = "printed_pattern,grayscale,indoor"
        rows.append(dict(source=f"debian:{pkg}", commit=ver, path=rel, sha256=digest, cls="real", generator="-", family="-",
                         licence=DEB_LICENCE[pkg], tags=tags or "-", split="test", width=w, height=h, format=fmt, bytes=len(data),
                         dh=dhash(data)))
    # More ordinary real photographs (REAL_SOURCES), checked against everything above for near-duplicates.
    for source, split, licence, rules, limit in REAL_SOURCES:
        assert split in ("train", "val"), source
        kind, name = source.split(":", 1)
        if kind == "github":
            gd = git_dir(name)
            if not os.path.isdir(gd):
                sys.exit(f"missing snapshot {name}: fetch github:{name} with the search tool")
            commit = subprocess.run(["git", f"--git-dir={gd}", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
            listing = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "-z", "HEAD"], capture_output=True).stdout.decode().split("\0")
            files = [(l.split("\t", 1)[1], l.split()[2]) for l in listing if l and l.split()[1] == "blob"]
            read = lambda sha: subprocess.run(["git", f"--git-dir={gd}", "cat-file", "blob", sha], capture_output=True).stdout
        else:
            root = deb_root(name)
            commit = open(os.path.join(root, ".version")).read().strip()
            files = sorted((os.path.relpath(os.path.join(d, f), root), os.path.join(d, f))
                           for d, _, fs in os.walk(root) for f in fs if not os.path.islink(os.path.join(d, f)))
            read = lambda fp: open(fp, "rb").read()
        others = [(x["dh"], f"{x['source']} {x['path']}") for x in rows if x["dh"] is not None]
        min_side = int(limit.split(":")[1]) if limit and limit.startswith("min:") else 128
        for path, ref in sorted(files):
            if not IMG.search(path):
                continue
            label = None
            for rx, lab in rules:
                if re.search(rx, path):
                    label = lab(path) if callable(lab) else lab
                    break
            if not label:
                continue
            cls, gen, fam, tags = label
            data = read(ref)
            if not data or data.startswith(b"version https://git-lfs"):
                notes.append(f"{source} {path}: absent from the snapshot (>= 4 MiB or LFS)")
                continue
            m = measure(data)
            if not m:
                notes.append(f"{source} {path}: not decodable")
                continue
            fmt, w, h, sd = m
            if min(w, h) < min_side:
                notes.append(f"{source} {path}: {w}x{h} under {min_side} px")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                notes.append(f"{source} {path}: same bytes as {seen[digest]}")
                continue
            dh = dhash(data)
            if dh is None:
                notes.append(f"{source} {path}: not decodable")
                continue
            # A picture already taken (from any source or split, at any size or encoding) is not taken twice.
            near = [(bin(dh ^ o).count("1"), n) for o, n in others if bin(dh ^ o).count("1") <= NEAR_DUP]
            if near:
                d, n = min(near)
                notes.append(f"{source} {path}: near-duplicate (dHash distance {d}) of {n}")
                continue
            others.append((dh, f"{source} {path}"))
            seen[digest] = f"{source} {path}"
            rows.append(dict(source=source, commit=commit, path=path, sha256=digest, cls=cls, generator=gen, family=fam,
                             licence=licence, tags=tags or "-", split=split, width=w, height=h, format=fmt, bytes=len(data), dh=dh))
    cols = ["source", "commit", "path", "sha256", "class", "generator", "family", "licence", "hard_case", "split", "width", "height", "format", "bytes"]
    with open(os.path.join(HERE, "manifest.tsv"), "w") as out:
        out.write("\t".join(cols) + "\n")
        for row in rows:
            row["class"], row["hard_case"] = row.pop("cls"), row.pop("tags")
            row.pop("dh", None)
            out.write("\t".join(str(row[c]) for c in cols) + "\n")
    with open(os.path.join(HERE, "excluded.txt"), "w") as out:
        out.write("\n".join(notes) + "\n")
    print(f"{len(rows)} rows, {len(notes)} exclusions noted")


if __name__ == "__main__":
    main()
