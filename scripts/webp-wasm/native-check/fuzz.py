import random, subprocess, sys, hashlib, os
DIR = os.environ['NATIVE_DIR']
# fuzz.py image.webp n seed build...: differential fuzz of libwebp builds (scripts/webp-wasm/native-check/run.sh):
# n seeded variants of the image (bytes overwritten, or cut short with or without a container that says so),
# each decoded whole or cropped by every build; any sanitizer report, or builds disagreeing on status or
# pixels, is printed and the input kept beside the builds.
img, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); builds = sys.argv[4:]
data = open(img, 'rb').read(); rnd = random.Random(seed)
mism = 0; statuses = {}
for i in range(n):
    b = bytearray(data)
    kind = rnd.random()
    if kind < 0.15:
        cut = rnd.randrange(30, len(b)); b = b[:cut]
        if rnd.random() < 0.7:
            b[4:8] = (len(b) - 8).to_bytes(4, 'little'); b[16:20] = (len(b) - 20).to_bytes(4, 'little')
    else:
        for _ in range(rnd.choice([1, 1, 2, 4, 16])):
            at = rnd.randrange(21, min(len(b), 400) if rnd.random() < 0.3 else len(b))
            b[at] = rnd.randrange(256)
    path = f'{DIR}/fz-{os.getpid()}.webp'; open(path, 'wb').write(b)
    crop = [] if rnd.random() < 0.7 else ['0', str(rnd.randrange(0, 1000)), '100', '100']
    res = []
    for build in builds:
        out = f'{DIR}/fz-{os.getpid()}-{build}.rgb'
        if os.path.exists(out): os.remove(out)
        p = subprocess.run([f'{DIR}/{build}', path, out] + crop, capture_output=True, text=True, timeout=600)
        if 'Sanitizer' in p.stderr or 'runtime error' in p.stderr:
            print('SANITIZER', build, i, p.stderr[:2000]); open(f'{DIR}/crash-{i}.webp','wb').write(b); sys.exit(1)
        h = hashlib.md5(open(out,'rb').read()).hexdigest()[:8] if os.path.exists(out) else '-'
        res.append((p.returncode, h))
    statuses[res[0][0]] = statuses.get(res[0][0], 0) + 1
    if len(set(res)) != 1:
        mism += 1; print('MISMATCH', i, res, crop); open(f'{DIR}/mismatch-{i}.webp','wb').write(b)
print(img, 'cases', n, 'statuses', statuses, 'mismatches', mism)
