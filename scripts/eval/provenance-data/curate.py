#!/usr/bin/env python3
"""Writes manifest.tsv: public image files that say what they are, for scripts/eval/provenance.ts.

Every row's `says` column is what the file's own metadata says, read here with ExifTool (Debian
package libimage-exiftool-perl, an implementation independent of the service's readers): C2PA
manifests in store order (the last one is the active manifest), each with its claim generator, its
actions' digitalSourceType and softwareAgent; XMP DigitalSourceType and CreatorTool; PNG text keys;
EXIF UserComment, Software, Make and Model. `expected` follows from the rules below and, for the
C2PA conformance files of c2pa-org/public-testfiles, from the validation status C2PA Tool (the
reference implementation) wrote beside each file in that repository (manifests/<name>/manifest_store.json).

Needs the repositories' snapshots (the search tool's `fetch`, under /work/.mirror or PROVENANCE_DATA_MIRROR),
exiftool, and apt-get for the Debian rows. Run from the repository root:

    python3 scripts/eval/provenance-data/curate.py
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
MIRROR = Path(os.environ.get("PROVENANCE_DATA_MIRROR", "/work/.mirror"))
DEB_CACHE = ROOT / ".cache/provenance-data-src/debian"
IMAGE = re.compile(r"\.(jpe?g|png|webp|heic)$", re.I)
TRAINED = ("trainedAlgorithmicMedia", "compositeWithTrainedAlgorithmicMedia", "compositeSynthetic", "trainedAlgorithmicData")

EXIF_GROUPS = ("IFD0", "ExifIFD")
COLUMNS = ["repo", "commit", "path", "sha256", "bytes", "format", "class", "expected", "group", "says"]

# Files of the C2PA test suites named by the public test-file convention (image/README.md of
# c2pa-org/public-testfiles): E-sig/E-uri/E-dat/E-clm = the active manifest fails; X = hash mismatch.
C2PA_RS_NAMED = {
    "C.jpg": "valid", "CA.jpg": "valid", "CACA.jpg": "valid", "CA_ct.jpg": "valid", "CIE-sig-CA.jpg": "valid",
    "E-sig-CA.jpg": "invalid", "XCA.jpg": "invalid", "adobe-20220124-E-clm-CAICAI.jpg": "invalid",
}


def git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={MIRROR / repo.replace('/', '+') / 'repo'}", *args], check=True, capture_output=True).stdout


def head(repo: str) -> str:
    return git(repo, "rev-parse", "HEAD").decode().strip()


def blobs(repo: str, commit: str, pattern: str) -> list[str]:
    paths = git(repo, "ls-tree", "-r", "-z", "--name-only", commit).decode().split("\0")
    return sorted(p for p in paths if p and IMAGE.search(p) and re.search(pattern, p))


def blob(repo: str, commit: str, path: str) -> bytes | None:
    try:
        return git(repo, "cat-file", "blob", f"{commit}:{path}")
    except subprocess.CalledProcessError:
        return None  # files of 4 MiB and more are not in the snapshots


def media_format(b: bytes) -> str | None:
    if b[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if b[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if b[:4] == b"RIFF" and b[8:12] == b"WEBP":
        return "webp"
    if b[4:8] == b"ftyp" and b[8:12] in (b"heic", b"heix", b"mif1"):
        return "heic"
    return None


def exif_lines(data: bytes) -> list[tuple[str, str, str]]:
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        # All tags, in file order (naming tags would list them in the order asked): the manifests
        # of a C2PA store then follow one another, each with its own assertions and claim.
        out = subprocess.run(["exiftool", "-a", "-G1", "-s", f.name], capture_output=True, text=True, errors="replace").stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\[([^\]]+)\]\s+(\S+)\s*: (.*)$", line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3)))
    return rows


def short(v: str, n: int = 60) -> str:
    v = re.sub(r"\s+", " ", v).strip()
    return v if len(v) <= n else v[: n - 1] + "…"


def describe(data: bytes) -> tuple[str, dict]:
    """What the file says about itself, and the facts the class rules need."""
    # ExifTool lists a store's JUMBF boxes first, then the CBOR content of every box in file order:
    # the manifests are counted from their (c2ma)/(c2um) description boxes, and the CBOR stream is
    # cut after each manifest's signature (COSE_Sign1, whose last item is Item3).
    lines = exif_lines(data)
    count = sum(1 for g, t, v in lines if g == "JUMBF" and t == "JUMDType" and re.match(r"\((c2ma|c2um)\)", v))
    manifests: list[dict] = [{"generator": "", "types": [], "agents": [], "actions": []} for _ in range(count)]
    at = 0
    facts = {"generated_types": [], "xmp_types": [], "png_keys": [], "user_comment": "", "software": "", "make": "", "model": "", "comment": ""}
    for group, tag, value in lines:
        if group == "CBOR" and manifests:
            m = manifests[min(at, count - 1)]
            if tag == "Item3":
                at += 1
            elif tag in ("Claim_generator", "Claim_Generator_InfoName") and not m["generator"]:
                m["generator"] = value
            elif tag.endswith("DigitalSourceType"):
                m["types"] += [t.strip().rsplit("/", 1)[-1] for t in value.split(",") if t.strip()]
            elif tag.endswith("SoftwareAgentName") or tag.endswith("SoftwareAgent"):
                m["agents"] += [a.strip() for a in value.split(",") if a.strip()]
            elif tag == "ActionsAction":
                m["actions"] += [a.strip() for a in value.split(",") if a.strip()]
        elif group == "XMP-iptcExt" and tag == "DigitalSourceType":
            facts["xmp_types"].append(value.rsplit("/", 1)[-1])
        elif group == "PNG" and tag not in ("ImageWidth", "ImageHeight", "BitDepth", "ColorType", "Compression", "Filter", "Interlace", "SRGBRendering", "Gamma",
                                           "WhitePointX", "WhitePointY", "RedX", "RedY", "GreenX", "GreenY", "BlueX", "BlueY", "PixelsPerUnitX", "PixelsPerUnitY",
                                           "PixelUnits", "SignificantBits", "BackgroundColor", "ModifyDate", "ProfileName", "ProfileCMMType", "ImageSize"):
            facts["png_keys"].append(tag)
        elif group in EXIF_GROUPS and tag == "UserComment":
            facts["user_comment"] = value
        elif group in EXIF_GROUPS and tag == "Software":
            facts["software"] = value
        elif group == "XMP-xmp" and tag == "CreatorTool" and not facts["software"]:
            facts["software"] = value
        elif group in EXIF_GROUPS and tag == "Make":
            facts["make"] = value
        elif group in EXIF_GROUPS and tag == "Model":
            facts["model"] = value
        elif group == "File" and tag == "Comment":
            facts["comment"] = value
    parts = []
    if manifests and at != count:
        # The signatures did not cut the stream into as many manifests: say it of the store as a whole.
        manifests = [{k: [x for m in manifests for x in m[k]] if k != "generator" else next((m[k] for m in manifests if m[k]), "") for k in manifests[0]}]
        parts.append(f"C2PA store of {count} manifests, not told apart")
    if manifests:
        for i, m in enumerate(manifests):
            role = "active" if i == len(manifests) - 1 else f"manifest {i + 1}"
            bits = [f"generator {short(m['generator'], 50)!r}" if m["generator"] else "no claim generator"]
            if m["actions"]:
                bits.append("actions " + ",".join(dict.fromkeys(m["actions"])))
            if m["types"]:
                bits.append("digitalSourceType " + ",".join(dict.fromkeys(m["types"])))
            if m["agents"]:
                bits.append("agent " + ",".join(dict.fromkeys(short(a, 30) for a in m["agents"])))
            parts.append(f"C2PA {role}: " + "; ".join(bits))
            facts["generated_types"] += [t for t in m["types"] if t in TRAINED]
        facts["active_types"] = manifests[-1]["types"]
    facts["manifests"] = len(manifests)
    if facts["xmp_types"]:
        parts.append("XMP DigitalSourceType " + ",".join(facts["xmp_types"]))
    if facts["png_keys"]:
        parts.append("PNG text " + ",".join(dict.fromkeys(facts["png_keys"])))
    if facts["user_comment"]:
        parts.append(f"EXIF UserComment {short(facts['user_comment'], 50)!r}")
    if facts["software"]:
        parts.append(f"Software {short(facts['software'], 40)!r}")
    if facts["make"] or facts["model"]:
        parts.append(f"camera {short(facts['make'] + ' ' + facts['model'], 50)!r}")
    if facts["comment"]:
        parts.append(f"JPEG comment {short(facts['comment'], 40)!r}")
    return ("; ".join(parts) or "nothing: no C2PA, no XMP source type, no generator text, no camera EXIF").replace("\t", " "), facts


def generator_marked(facts: dict) -> bool:
    uc = facts["user_comment"]
    return bool(facts["generated_types"] or any(t in TRAINED for t in facts["xmp_types"]) or facts["png_keys"]
                or re.search(r"Steps: \d|sui_image_params|\"prompt\"|class_type|Negative prompt", uc)
                or re.match(r"(Prompt|workflow|prompt):", facts["make"] + facts["model"]) or "NovelAI" in facts["software"])


def reference_validity(path: str) -> str | None:
    """C2PA Tool's reading of a c2pa-org/public-testfiles file (manifest_store.json beside it)."""
    name = Path(path).stem
    report = f"image/jpeg/manifests/{name}/manifest_store.json"
    try:
        store = json.loads(git("c2pa-org/public-testfiles", "show", f"{REF_COMMIT}:{report}"))
    except subprocess.CalledProcessError:
        return None
    codes = [s.get("code", "") for s in store.get("validation_status", [])]
    return ("invalid: " + ",".join(codes)) if codes else "valid"


REF_COMMIT = ""


def c2pa_vendor(says: str) -> str:
    for pattern, name in [(r"ChatGPT|GPT-4o|gpt-image|OpenAI|DALL", "OpenAI (C2PA)"), (r"Google", "Google Gemini/Imagen (C2PA)"),
                          (r"Firefly", "Adobe Firefly (C2PA)"), (r"Titan", "Amazon Titan (C2PA)"), (r"Designer|Bing|Microsoft", "Microsoft (C2PA)")]:
        if re.search(pattern, says):
            return name
    return "other generator (C2PA)"


def params_tool(path: str, facts: dict) -> str:
    name = Path(path).name.lower()
    for key, label in [("novelai", "NovelAI"), ("invokeai", "InvokeAI"), ("comfyui", "ComfyUI"), ("fooocus", "Fooocus"), ("swarmui", "SwarmUI"), ("automatic1111", "A1111 and forks"),
                       ("forge", "A1111 and forks"), ("sd-webui", "A1111 and forks"), ("sd-next", "A1111 and forks"), ("reforge", "A1111 and forks"), ("civitai", "Civitai"),
                       ("stability-matrix", "Stability Matrix"), ("tensorart", "Tensor.Art"), ("huggingface", "Hugging Face Space"), ("krea", "ComfyUI")]:
        if key in name or key in path.lower():
            return label
    return "other"


def rows_from(repo: str, pattern: str, rule, only: set[str] | None = None) -> list[list[str]]:
    commit = head(repo)
    out = []
    for path in blobs(repo, commit, pattern):
        if only is not None and path not in only:
            continue
        data = blob(repo, commit, path)
        if not data:
            print(f"  skipped (not in the snapshot): {repo}:{path}", file=sys.stderr)
            continue
        fmt = media_format(data)
        if not fmt:
            continue
        says, facts = describe(data)
        decided = rule(path, says, facts)
        if decided is None:
            continue
        cls, expected, group = decided
        out.append([repo, commit, path, hashlib.sha256(data).hexdigest(), str(len(data)), fmt, cls, expected, group, says])
    return out


def c2pa_generator(path, says, facts):
    if not facts["generated_types"]:
        return None
    return ("c2pa_generator", "ai", c2pa_vendor(says))


def parameters(path, says, facts):
    if "/c2pa/" in path:
        return None
    if re.search(r"/(empty|gimp)[^/]*$", path):
        return ("generator_stripped", "ai", "generator output re-saved without metadata")
    if not generator_marked(facts):
        # A1111's "stealth" PNG info lives in the alpha channel's low bits, not in any metadata block.
        return ("generator_parameters", "ai", "A1111 stealth PNG info (alpha channel)") if "stealth" in path else None
    return ("generator_parameters", "ai", f"generator parameters: {params_tool(path, facts)}")


def c2pa_rs(path, says, facts):
    name = Path(path).name
    if name == "ocsp.jpg":
        return ("c2pa_generator", "ai", c2pa_vendor(says))
    if facts["manifests"]:
        return ("c2pa_test_file", C2PA_RS_NAMED.get(name, "manifest"), "C2PA test files: c2pa-rs fixtures")
    return ("plain_photo", "none", "photos without provenance: C2PA test suites")


def public_testfiles(path, says, facts):
    name = Path(path).name
    if not facts["manifests"]:
        return ("plain_photo", "none", "photos without provenance: C2PA test suites")
    ref = reference_validity(path)
    if name.startswith("nikon-"):
        return ("c2pa_camera", "none", "camera C2PA: Nikon Z 9 (reference: signature fails)")
    if name.startswith("truepic-"):
        return ("c2pa_camera", "human", "camera C2PA: Truepic Lens on a Pixel 5")
    return ("c2pa_test_file", "valid" if ref == "valid" else "invalid", "C2PA test files: c2pa-org public-testfiles")


def sy_picture(path, says, facts):
    if any(t in TRAINED for t in facts["xmp_types"]):
        return ("iptc_generator", "ai", "IPTC DigitalSourceType: Apple Image Playground")
    return ("plain_photo", "none", "photos without provenance: metadata test files")


def deb_root(pkg: str, version: str) -> Path:
    d = DEB_CACHE / pkg
    if (d / ".version").exists():
        return d
    DEB_CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", f"{pkg}={version}"], cwd=DEB_CACHE, check=True, capture_output=True)
    deb = next(DEB_CACHE.glob(f"{pkg}_*.deb"))
    subprocess.run(["dpkg", "-x", str(deb), str(d)], check=True)
    (d / ".version").write_text(version + "\n")
    return d


def debian_rows(pkg: str, version: str, paths: list[str]) -> list[list[str]]:
    root = deb_root(pkg, version)
    out = []
    for path in paths:
        data = (root / path).read_bytes()
        says, _ = describe(data)
        out.append([f"debian:{pkg}", version, path, hashlib.sha256(data).hexdigest(), str(len(data)), media_format(data), "plain_photo", "none",
                    "photos without provenance: Debian wallpapers", says])
    return out


def main() -> None:
    global REF_COMMIT
    REF_COMMIT = head("c2pa-org/public-testfiles")
    rows: list[list[str]] = []
    # (a) C2PA-signed generator outputs.
    rows += rows_from("Yogesh1290/huminify-c2pa-detector", r"^examples/", c2pa_generator)
    rows += rows_from("pranayr710/c2pa-ai-detector", r"^img/", c2pa_generator)
    rows += rows_from("enslo/sd-metadata", r"^samples/c2pa/", c2pa_generator)
    rows += rows_from("TrustNXT/c2pa-ts", r"^tests/fixtures/amazon-titan", c2pa_generator)
    # (b) camera C2PA and (e) the conformance files of the C2PA test suites.
    rows += rows_from("c2pa-org/public-testfiles", r"^image/jpeg/[^/]+$", public_testfiles)
    rows += rows_from("contentauth/c2pa-rs", r"^sdk/tests/fixtures/[^/]+$", c2pa_rs)
    # (c) IPTC DigitalSourceType.
    rows += rows_from("dvkch/SYPictureMetadata", r"^Sources/SYPictureMetadataTestAssets/TestFile/TEST_(IPTC|PNG)", sy_picture)
    # (d) generator parameters in PNG text, EXIF UserComment, EXIF tags.
    rows += rows_from("d3x-at/sd-parsers", r"^tests/resources/parsers/", parameters)
    rows += rows_from("enslo/sd-metadata", r"^samples/(png|jpg|webp)/", parameters)
    # (f) ordinary photographs: the camera originals the pixel-detector set already takes from
    # metadata-extractor-images (scripts/eval/ai-data/manifest.tsv), and the MATE wallpapers
    # scripts/real-photos.ts uses.
    extractor = [line.split("\t") for line in (ROOT / "scripts/eval/ai-data/manifest.tsv").read_text().splitlines()[1:]]
    extractor_paths = {r[2] for r in extractor if r[0] == "github:drewnoakes/metadata-extractor-images" and r[4] == "real"}
    rows += rows_from("drewnoakes/metadata-extractor-images", r".", lambda p, s, f: None if f["manifests"] else ("plain_photo", "none", "photos without provenance: camera originals"), extractor_paths)
    mate = [f"usr/share/backgrounds/mate/nature/{n}.jpg" for n in "Aqua Blinds Dune FreshFlower Garden GreenMeadow LadyBird RainDrops Storm TwoWings Wood YellowFlower".split()]
    mate += [f"usr/share/backgrounds/mate/abstract/{n}.jpg" for n in ("Elephants", "Elephants_3840x2160", "Elephants_5640x3172")]
    rows += debian_rows("mate-backgrounds", "1.26.0-1", mate)

    seen = set()
    unique = []
    for r in rows:
        if r[3] in seen:
            continue  # the same bytes in two places count once
        seen.add(r[3])
        unique.append(r)
    (HERE / "manifest.tsv").write_text("\t".join(COLUMNS) + "\n" + "".join("\t".join(r) + "\n" for r in unique))
    from collections import Counter
    print(f"{len(unique)} rows")
    for (cls, group), n in sorted(Counter((r[6], r[8]) for r in unique).items()):
        print(f"  {n:4d}  {cls:22s} {group}")


if __name__ == "__main__":
    main()
