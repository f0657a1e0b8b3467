#!/usr/bin/python3
"""Peer Hausdorff implementations for scripts/bench-cpu, run under the Debian Python.

  bench_peers.py probe                 -> {"scipy": {"version": ...} | {"error": ...}, "open3d": ...}
  bench_peers.py scipy  A.f32 B.f32    -> {"hd": ..., "seconds": ..., "runs": ..., "cpu_seconds": ...}
  bench_peers.py open3d A.f32 B.f32    -> {"hd": ..., "seconds": ..., "runs": ..., "cpu_seconds": ...}

Inputs are raw little-endian float32, n x 3. Only the computation is timed, never file loading
or imports. SciPy: directed_hausdorff both ways (single-threaded, early break, seed 0).
Open3D: the timing includes building both PointClouds and the KD-trees that
compute_point_cloud_distance builds internally on each call (one per direction); it runs on
all cores through OpenMP. A computation under 2 s is repeated and the best of 3 kept, as
bench-cpu does for its own methods.
"""
import json
import os
import sys
import time

REPEAT_BELOW_S = 2.0


def probe():
    status = {}
    for name, module in (("scipy", "scipy.spatial.distance"), ("open3d", "open3d")):
        try:
            __import__(module)
            status[name] = {"version": sys.modules[name].__version__}
        except Exception as err:  # any import failure means: skip this peer
            status[name] = {"error": f"{type(err).__name__}: {err}"}
    return status


def load(path):
    import numpy as np

    # Both peers work in double; converting here keeps the conversion out of the timing.
    return np.fromfile(path, dtype="<f4").reshape(-1, 3).astype(np.float64)


def scipy_hd(a, b):
    from scipy.spatial.distance import directed_hausdorff

    start = time.perf_counter()
    hd = max(directed_hausdorff(a, b)[0], directed_hausdorff(b, a)[0])
    return hd, time.perf_counter() - start


def open3d_hd(a, b):
    import numpy as np
    import open3d as o3d

    start = time.perf_counter()
    pa = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(a))
    pb = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(b))
    ab = np.asarray(pa.compute_point_cloud_distance(pb)).max()
    ba = np.asarray(pb.compute_point_cloud_distance(pa)).max()
    return float(max(ab, ba)), time.perf_counter() - start


def main(argv):
    if argv[:1] == ["probe"]:
        print(json.dumps(probe()))
        return 0
    if len(argv) != 3 or argv[0] not in ("scipy", "open3d"):
        print(__doc__, file=sys.stderr)
        return 2
    method, path_a, path_b = argv
    a, b = load(path_a), load(path_b)
    compute = scipy_hd if method == "scipy" else open3d_hd
    hd, seconds = compute(a, b)
    runs = 1
    while seconds < REPEAT_BELOW_S and runs < 3:
        seconds = min(seconds, compute(a, b)[1])
        runs += 1
    # CPU time of this whole process, so bench-cpu can tell its own load from other processes'.
    cpu_seconds = sum(os.times()[:4])
    print(json.dumps({"hd": float(hd), "seconds": seconds, "runs": runs, "cpu_seconds": cpu_seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
