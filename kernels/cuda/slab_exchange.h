// The split by space's parts made by the GPUs themselves (slab_split.h says what a part is and why the split's
// answer is the whole sets'). The host's way (slab_upload.h) reads each set once to lay it out and then, for
// each worker, gathers the worker's part from points in random order: at a billion points a side on 2 × H200
// that was 0.3 s of layout and about 0.8 s of gathering a worker, more than the GPU work the split saves
// (docs/benchmarks.md, "The split by space without host copies of the parts"). Here each worker uploads one
// contiguous share of each set (its n/workers points from its index on: a plain copy, at the link's full
// speed when the caller's memory is pinned), decides on its device which slabs' parts hold each of its points
// (the host layout's own float compares and edges), and sends every other worker the points of that worker's
// part over the peer link. A part is the workers' contributions in worker order, each in its share's order:
// the set's order, as the host's layout has it, so the grids, the searches and their ties are the same.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "../geometry/point_frame.h"
#include "../geometry/slab_split.h"
#include "device_memory.h"
#include "early_upload.h"
#include "slab_upload.h"

namespace xhd {

// Thrown from a wait on a Rendezvous that another worker abandoned: this worker stops, and the failure that
// made the other abandon it is the one the call reports.
struct PartnerFailed : std::runtime_error {
  PartnerFailed() : std::runtime_error("another worker of the split failed") {}
};

// Workers of one split waiting for one another between the exchange's steps.
class Rendezvous {
 public:
  explicit Rendezvous(int parties) : parties_(parties) {}
  // Returns once every party has arrived at this step; throws PartnerFailed once the rendezvous is abandoned.
  void arrive();
  // A worker failed: every wait, present and future, throws.
  void abandon();

 private:
  std::mutex lock_;
  std::condition_variable changed_;
  int parties_;
  int arrived_ = 0;
  uint64_t step_ = 0;
  bool abandoned_ = false;
};

// What one worker holds on its device for one slab's part of one set: its share's points held by that part,
// in order, with their indices in the set and in-slab flags.
struct Contribution {
  const float* raw = nullptr;
  const uint32_t* set_index = nullptr;
  const uint8_t* in_slab = nullptr;
  uint64_t count = 0;
  uint64_t slab_count = 0;  // of them, the points in the slab itself
};

// One split's exchange, shared by its workers (one per slab).
class SlabExchange {
 public:
  // halo_a, halo_b: the halos around the slabs of A's and B's parts (slab_split.h). early: the shares already on
  // their way (early_upload.h), [set * workers + worker], or null; a share it does not hold is uploaded here.
  SlabExchange(const PointFrame& frame, const SlabPlan& plan, double halo_a, double halo_b, int workers,
               std::vector<EarlyUpload>* early = nullptr);

  int workers() const { return workers_; }
  const FramedSet& set(int s) const { return s == 0 ? *a_ : *b_; }
  const FloatSlabEdges& edges(int s) const { return edges_[s]; }
  int axis() const { return axis_; }
  Contribution& contribution(int s, int from, int to) { return offered_[(s * workers_ + from) * workers_ + to]; }
  Rendezvous& rendezvous() { return rendezvous_; }
  // Worker w's share of set s, if it was sent early (else null).
  EarlyUpload* early(int s, int w) { return early_ != nullptr ? &(*early_)[s * workers_ + w] : nullptr; }

 private:
  const FramedSet* a_;
  const FramedSet* b_;
  int axis_;
  int workers_;
  std::array<FloatSlabEdges, 2> edges_;
  std::vector<Contribution> offered_;  // [set][from worker][to slab]
  Rendezvous rendezvous_;
  std::vector<EarlyUpload>* early_;
};

// Each worker's share of each set of a split over `devices` started early (early_upload.h), [set * workers + worker]
// as SlabExchange takes them: where both sets are float32 and page-locked, and the GPUs are to make the parts
// (XHD_EXCHANGED_SLABS, XHD_GATHERED_SLABS on). Empty otherwise.
std::vector<EarlyUpload> start_share_uploads(const xhd_points& a, const xhd_points& b, const std::vector<int>& devices);

// Whether the GPUs can make this split's parts: both sets float (their copies in place are the truth), no
// share beyond 2^31 - 1 points (CUB's counts), and each pair of distinct devices able to reach the other's
// memory (their memory pools are then opened to each other, once a process). XHD_EXCHANGED_SLABS=0 says no
// (the host's layouts then make the parts: tests and benchmarks).
bool gpus_exchange_parts(const PointFrame& frame, const std::vector<int>& devices);

// Worker w's parts of A and B (w its slab), made with the other workers, each of which calls this at the same
// time on its own device and stream. Returns once the parts are on w's device; `upload_ms` grows by the time
// it took. A failure here abandons the exchange for the others.
std::array<DevicePart, 2> exchange_parts(DeviceMemory& memory, SlabExchange& exchange, int w, cudaStream_t stream,
                                         double& upload_ms);

}  // namespace xhd
