#!/usr/bin/env python3
"""Peer HD / HD95 / ASSD of two voxel masks for scripts/bench-masks: the SciPy way segmentation toolkits
(MONAI, medpy) measure them, written here from their published method.

  bench_masks_peers.py probe                                 -> {"python", "executable", "numpy", "scipy"} or {"error"}
  bench_masks_peers.py VARIANT A.nii.gz B.nii.gz [--repeat R] -> one JSON object (below)

VARIANT:
  edt       surfaces by binary erosion, then distance_transform_edt over the whole grid (medpy's way)
  edt-crop  the same on the union bounding box of both masks plus a 1-voxel margin (MONAI's default, crop=True)
  kdtree    surfaces by binary erosion, cKDTree on their voxel centres in mm, queried both ways on every core

Surface: the mask minus its binary erosion with the 6-connected cross (generate_binary_structure(3, 1)) and
border_value=0, so a mask voxel is on the surface when one of its 6 face neighbours is background or outside
the grid: xhd's rule. Distances in mm: EDT with sampling = voxel sizes; k-d tree on index × voxel size. Both
give each surface voxel's distance to the nearest surface voxel of the other mask (exact Euclidean, double).
Statistics: HD = the larger directed maximum; HD95 = np.percentile(..., 95) (linear) per direction, the larger;
ASSD = the mean of the two directed means. These are xhd's defaults (max-of-directed, mean-of-means).

Only the computation is timed (surfaces, distances, statistics), never imports or file reading; reading is
timed on its own (gzip + header + np.frombuffer + != 0). Runs R times (default 5) and reports the median,
stopping early once the runs have taken 60 s (at least one run).

The NIfTI reader is a minimal one (NIfTI-1, little endian, sform or pixdim voxel sizes, axis-aligned
affines only), enough for the files bench-masks writes; nibabel is not needed.
"""
import gzip
import json
import os
import struct
import sys
import time

BUDGET_S = 60.0
DTYPES = {2: "u1", 4: "i2", 8: "i4", 16: "f4", 64: "f8", 256: "i1", 512: "u2", 768: "u4"}


def probe():
    try:
        import numpy
        import scipy
        import scipy.ndimage  # noqa: F401
        import scipy.spatial  # noqa: F401
    except Exception as err:  # any import failure means: skip the peers
        return {"error": f"{type(err).__name__}: {err}"}
    version = ".".join(str(v) for v in sys.version_info[:3])
    return {"python": version, "executable": sys.executable, "numpy": numpy.__version__, "scipy": scipy.__version__}


def read_mask(path):
    """Boolean mask indexed [k, j, i] (the file's order, i fastest) and the voxel sizes along k, j, i in mm."""
    import numpy as np

    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if struct.unpack_from("<i", data, 0)[0] != 348:
        raise ValueError(f"{path}: not a little-endian NIfTI-1 file")
    dim = struct.unpack_from("<8h", data, 40)
    if dim[0] != 3:
        raise ValueError(f"{path}: expected a 3D volume, dim[0] = {dim[0]}")
    nx, ny, nz = dim[1:4]
    datatype = struct.unpack_from("<h", data, 70)[0]
    pixdim = struct.unpack_from("<8f", data, 76)
    vox_offset = int(struct.unpack_from("<f", data, 108)[0])
    sform_code = struct.unpack_from("<h", data, 254)[0]
    if sform_code > 0:
        rows = struct.unpack_from("<12f", data, 280)
        for r in range(3):
            for c in range(3):
                if r != c and rows[4 * r + c] != 0:
                    raise ValueError(f"{path}: the sform is not axis-aligned; this reader handles diagonal affines only")
        sizes = [abs(rows[5 * c]) for c in range(3)]  # diagonal entries 0, 5, 10
    else:
        sizes = [abs(v) for v in pixdim[1:4]]
    dtype = np.dtype(DTYPES[datatype]).newbyteorder("<")
    count = nx * ny * nz
    values = np.frombuffer(data, dtype=dtype, count=count, offset=vox_offset).reshape(nz, ny, nx)
    return values != 0, (float(sizes[2]), float(sizes[1]), float(sizes[0]))


def surfaces(a, b):
    from scipy import ndimage

    cross = ndimage.generate_binary_structure(3, 1)  # the 6-connected cross
    sa = a & ~ndimage.binary_erosion(a, structure=cross, border_value=0)
    sb = b & ~ndimage.binary_erosion(b, structure=cross, border_value=0)
    return sa, sb


def crop_box(a, b):
    """Slices of the union bounding box of a and b, grown by one voxel (clipped to the grid)."""
    import numpy as np

    union = a | b
    box = []
    for axis in range(3):
        other = tuple(x for x in range(3) if x != axis)
        hit = np.flatnonzero(union.any(axis=other))
        box.append(slice(max(int(hit[0]) - 1, 0), min(int(hit[-1]) + 2, union.shape[axis])))
    return tuple(box)


def distances_edt(sa, sb, spacing):
    from scipy import ndimage

    d_ab = ndimage.distance_transform_edt(~sb, sampling=spacing)[sa]
    d_ba = ndimage.distance_transform_edt(~sa, sampling=spacing)[sb]
    return d_ab, d_ba


def distances_kdtree(sa, sb, spacing):
    import numpy as np
    from scipy.spatial import cKDTree

    scale = np.asarray(spacing)
    pa = np.argwhere(sa) * scale
    pb = np.argwhere(sb) * scale
    d_ab = cKDTree(pb).query(pa, k=1, workers=-1)[0]
    d_ba = cKDTree(pa).query(pb, k=1, workers=-1)[0]
    return d_ab, d_ba


def statistics(d_ab, d_ba):
    import numpy as np

    p_ab, p_ba = float(np.percentile(d_ab, 95)), float(np.percentile(d_ba, 95))
    m_ab, m_ba = float(d_ab.mean()), float(d_ba.mean())
    return {
        "hd": float(max(d_ab.max(), d_ba.max())),
        "hd_ab": float(d_ab.max()),
        "hd_ba": float(d_ba.max()),
        "hd95": max(p_ab, p_ba),
        "hd95_ab": p_ab,
        "hd95_ba": p_ba,
        "assd": (m_ab + m_ba) / 2,
        "mean_ab": m_ab,
        "mean_ba": m_ba,
    }


def run_once(variant, a, b, spacing):
    """One timed computation: (values, {surface, distances, statistics} seconds)."""
    t0 = time.perf_counter()
    if variant == "edt-crop":
        box = crop_box(a, b)
        a, b = a[box], b[box]
    sa, sb = surfaces(a, b)
    t1 = time.perf_counter()
    d_ab, d_ba = (distances_kdtree if variant == "kdtree" else distances_edt)(sa, sb, spacing)
    t2 = time.perf_counter()
    values = statistics(d_ab, d_ba)
    t3 = time.perf_counter()
    values["surface_a"], values["surface_b"] = int(d_ab.size), int(d_ba.size)
    return values, {"surface": t1 - t0, "distances": t2 - t1, "statistics": t3 - t2}


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main(argv):
    if argv[:1] == ["probe"]:
        print(json.dumps(probe()))
        return 0
    repeat = 5
    if "--repeat" in argv:
        at = argv.index("--repeat")
        repeat = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) != 3 or argv[0] not in ("edt", "edt-crop", "kdtree") or repeat < 1:
        print(__doc__, file=sys.stderr)
        return 2
    variant, path_a, path_b = argv
    import numpy  # noqa: F401 -- imported before the reading is timed
    import scipy.ndimage  # noqa: F401 -- and SciPy before the computation is
    import scipy.spatial  # noqa: F401

    t0 = time.perf_counter()
    a, spacing_a = read_mask(path_a)
    b, spacing_b = read_mask(path_b)
    read_s = time.perf_counter() - t0
    if a.shape != b.shape or any(abs(x - y) > 1e-6 * max(x, y) for x, y in zip(spacing_a, spacing_b)):
        raise ValueError("the two masks have different grids or voxel sizes")

    runs = []
    spent = 0.0
    while len(runs) < repeat and (not runs or spent < BUDGET_S):
        values, parts = run_once(variant, a, b, spacing_a)
        runs.append(parts)
        spent += sum(parts.values())
    totals = [sum(p.values()) for p in runs]
    out = dict(values)
    out.update({
        "seconds": median(totals),
        "parts": {key: median([p[key] for p in runs]) for key in runs[0]},
        "runs": len(runs),
        "read_seconds": read_s,
        "spacing_kji": list(spacing_a),
        # CPU time of this whole process, so the benchmark can tell its own load from other processes'.
        "cpu_seconds": sum(os.times()[:4]),
    })
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
