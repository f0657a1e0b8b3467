#include "optix_session.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <optix_function_table_definition.h>  // the one definition of the OptiX function table
#include <optix_stack_size.h>
#include <optix_stubs.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "../abi/status_guard.h"
#include "../cuda/cuda_check.h"
#include "optix_check.h"
#include "programs_ptx.h"

namespace xhd {

std::string optix_failure_text(OptixResult status, const char* what, const char* log) {
  std::string text = std::string(what) + ": " + optixGetErrorName(status) + " (" + optixGetErrorString(status) + ")";
  if (log != nullptr && log[0] != '\0') text += "; log: " + std::string(log);
  return text;
}

int optix_header_version() { return OPTIX_VERSION; }

namespace {

std::string version_text(int v) {
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

// optixInit loads the driver's libnvoptix.so.1 and asks it for the function table of this ABI. Its
// failures mean OptiX cannot run on this machine as built: say which, and what fixes it.
void init_optix() {
  const OptixResult status = optixInit();
  if (status == OPTIX_SUCCESS) return;
  const std::string headers =
      "OptiX " + version_text(OPTIX_VERSION) + " headers, ABI " + std::to_string(OPTIX_ABI_VERSION);
  switch (status) {
    case OPTIX_ERROR_LIBRARY_NOT_FOUND:
      throw Unavailable(
          "OptiX is not available: the NVIDIA driver's OptiX library (libnvoptix.so.1) was not found. "
          "Install the full NVIDIA driver (not only the CUDA toolkit); in a container, set "
          "NVIDIA_DRIVER_CAPABILITIES to include graphics (or all). The cuda backend still works");
    case OPTIX_ERROR_UNSUPPORTED_ABI_VERSION:
      throw Unavailable(
          "OptiX is not available: the driver's OptiX does not support the ABI this library was built "
          "with (" +
          headers +
          "). Update the NVIDIA driver, or rebuild xhd with older OptiX headers "
          "(OPTIX_ROOT=<OptiX SDK> npm run build; driver 580 knows OptiX <= 9.0)");
    case OPTIX_ERROR_ENTRY_SYMBOL_NOT_FOUND:
    case OPTIX_ERROR_LIBRARY_UNLOAD_FAILURE:
      throw Unavailable("OptiX is not available: the driver's OptiX library could not be used (" +
                        optix_failure_text(status, "optixInit") + "). Reinstall or update the NVIDIA driver");
    default:
      throw Unavailable("OptiX is not available: " + optix_failure_text(status, "optixInit") + " (" + headers + ")");
  }
}

// The OptiX context's own messages (errors and warnings), kept for the message of a failed call.
std::mutex log_mutex;
std::string context_log;

void log_callback(unsigned level, const char* tag, const char* message, void*) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (context_log.size() < 4096)
    context_log += "[" + std::to_string(level) + "][" + (tag ? tag : "") + "] " + (message ? message : "") + "\n";
}

std::string take_context_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  std::string text;
  text.swap(context_log);
  return text;
}

// The device context on the device's primary CUDA context, and its RT-core version.
OptixDevice create_device(int device) {
  OptixDevice d;
  d.device = device;
  XHD_CUDA(cudaFree(nullptr));  // the device's primary context exists and is current
  OptixDeviceContextOptions options{};
  options.logCallbackFunction = log_callback;
  options.logCallbackLevel = 2;  // errors and warnings
  const OptixResult status = optixDeviceContextCreate(nullptr, &options, &d.context);
  if (status != OPTIX_SUCCESS) {
    throw Unavailable("OptiX is not available on device " + std::to_string(device) + ": " +
                      optix_failure_text(status, "optixDeviceContextCreate", take_context_log().c_str()) +
                      ". Check `nvidia-smi` and the driver installation; the cuda backend may still work");
  }
  const OptixResult property = optixDeviceContextGetProperty(d.context, OPTIX_DEVICE_PROPERTY_RTCORE_VERSION,
                                                             &d.rtcore_version, sizeof(d.rtcore_version));
  if (property != OPTIX_SUCCESS) {
    optixDeviceContextDestroy(d.context);
    throw OptixFailure(property, optix_failure_text(property, "optixDeviceContextGetProperty(RTCORE_VERSION)"));
  }
  return d;
}

// One SBT record: OptiX's header and no data (the programs read everything from the launch parameters).
struct alignas(OPTIX_SBT_RECORD_ALIGNMENT) EmptyRecord {
  char header[OPTIX_SBT_RECORD_HEADER_SIZE];
};

class SessionBuilder {
 public:
  explicit SessionBuilder(const OptixDevice& d) {
    s_.device = d.device;
    s_.context = d.context;
    s_.rtcore_version = d.rtcore_version;
  }
  ~SessionBuilder() {
    // Only reached with a partial session (a failure part way): free what was made.
    for (OptixProgramGroup g : groups_)
      if (g != nullptr) optixProgramGroupDestroy(g);
    if (module_ != nullptr) optixModuleDestroy(module_);
    // The built-in sphere module is OptiX's own: it is not destroyed.
    if (s_.pipeline != nullptr) optixPipelineDestroy(s_.pipeline);
    if (records_ != nullptr) cudaFree(records_);
  }

  OptixSession build() {
    create_module();
    create_groups();
    create_pipeline();
    create_sbt();
    OptixSession done = s_;
    s_ = OptixSession{};  // the session keeps them now; the program groups and the module stay alive with it
    for (OptixProgramGroup& g : groups_) g = nullptr;
    module_ = nullptr;
    records_ = nullptr;
    return done;
  }

 private:
  void create_module() {
    OptixModuleCompileOptions module_options{};
    module_options.maxRegisterCount = OPTIX_COMPILE_DEFAULT_MAX_REGISTER_COUNT;
    module_options.optLevel = OPTIX_COMPILE_OPTIMIZATION_DEFAULT;
    module_options.debugLevel = OPTIX_COMPILE_DEBUG_LEVEL_NONE;
    pipeline_options_.usesMotionBlur = 0;
    pipeline_options_.traversableGraphFlags = OPTIX_TRAVERSABLE_GRAPH_FLAG_ALLOW_SINGLE_GAS;
    pipeline_options_.numPayloadValues = 6;    // search_programs.cu's payload words
    pipeline_options_.numAttributeValues = 2;  // the minimum; the hit reported carries none
    pipeline_options_.exceptionFlags = OPTIX_EXCEPTION_FLAG_NONE;
    pipeline_options_.pipelineLaunchParamsVariableName = "params";
    // Runs of points as custom boxes, or points as built-in spheres (target_chunks.h, target_spheres.h).
    pipeline_options_.usesPrimitiveTypeFlags = OPTIX_PRIMITIVE_TYPE_FLAGS_CUSTOM | OPTIX_PRIMITIVE_TYPE_FLAGS_SPHERE;
    char log[2048];
    size_t log_size = sizeof(log);
    log[0] = '\0';
    module_options_ = module_options;
    const OptixResult status = optixModuleCreate(s_.context, &module_options, &pipeline_options_, kSearchProgramsPtx,
                                                 kSearchProgramsPtxSize, log, &log_size, &module_);
    if (status != OPTIX_SUCCESS) {
      module_ = nullptr;
      // The driver compiles the embedded PTX: a PTX newer than the driver knows is the likely cause.
      throw Unavailable(
          "OptiX could not compile xhd's search programs: " + optix_failure_text(status, "optixModuleCreate", log) +
          ". If the log names an unsupported PTX version, the CUDA toolkit that built xhd is newer than "
          "the driver: update the driver or rebuild with an older nvcc");
    }
  }

  void create_group(const OptixProgramGroupDesc& desc, OptixProgramGroup& group, const char* what) {
    OptixProgramGroupOptions options{};
    char log[2048];
    size_t log_size = sizeof(log);
    log[0] = '\0';
    const OptixResult status = optixProgramGroupCreate(s_.context, &desc, 1, &options, log, &log_size, &group);
    if (status != OPTIX_SUCCESS) {
      group = nullptr;
      throw OptixFailure(status, optix_failure_text(status, what, log));
    }
  }

  void create_groups() {
    OptixProgramGroupDesc raygen{};
    raygen.kind = OPTIX_PROGRAM_GROUP_KIND_RAYGEN;
    raygen.raygen.module = module_;
    raygen.raygen.entryFunctionName = "__raygen__search";
    create_group(raygen, groups_[0], "optixProgramGroupCreate(raygen)");
    OptixProgramGroupDesc miss{};
    miss.kind = OPTIX_PROGRAM_GROUP_KIND_MISS;
    miss.miss.module = module_;
    miss.miss.entryFunctionName = "__miss__none";
    create_group(miss, groups_[1], "optixProgramGroupCreate(miss)");
    OptixProgramGroupDesc hit{};
    hit.kind = OPTIX_PROGRAM_GROUP_KIND_HITGROUP;
    hit.hitgroup.moduleIS = module_;
    hit.hitgroup.entryFunctionNameIS = "__intersection__chunk";
    create_group(hit, groups_[2], "optixProgramGroupCreate(hitgroup)");
    OptixBuiltinISOptions sphere_options{};
    sphere_options.builtinISModuleType = OPTIX_PRIMITIVE_TYPE_SPHERE;
    sphere_options.buildFlags = kTargetBuildFlags;  // must match the structure's (target_spheres.cu)
    XHD_OPTIX(optixBuiltinISModuleGet(s_.context, &module_options_, &pipeline_options_, &sphere_options,
                                      &sphere_module_));
    OptixProgramGroupDesc sphere{};
    sphere.kind = OPTIX_PROGRAM_GROUP_KIND_HITGROUP;
    sphere.hitgroup.moduleIS = sphere_module_;
    sphere.hitgroup.moduleAH = module_;
    sphere.hitgroup.entryFunctionNameAH = "__anyhit__sphere";
    create_group(sphere, groups_[3], "optixProgramGroupCreate(sphere hitgroup)");
  }

  void create_pipeline() {
    OptixPipelineLinkOptions link{};
    link.maxTraceDepth = 1;
    char log[2048];
    size_t log_size = sizeof(log);
    log[0] = '\0';
    const OptixResult status =
        optixPipelineCreate(s_.context, &pipeline_options_, &link, groups_, kGroups, log, &log_size, &s_.pipeline);
    if (status != OPTIX_SUCCESS) {
      s_.pipeline = nullptr;
      throw OptixFailure(status, optix_failure_text(status, "optixPipelineCreate", log));
    }
    OptixStackSizes sizes{};
    for (OptixProgramGroup g : groups_) XHD_OPTIX(optixUtilAccumulateStackSizes(g, &sizes, s_.pipeline));
    unsigned from_traversal = 0, from_state = 0, continuation = 0;
    XHD_OPTIX(optixUtilComputeStackSizes(&sizes, 1, 0, 0, &from_traversal, &from_state, &continuation));
    // One GAS, no instances: traversal depth 1.
    XHD_OPTIX(optixPipelineSetStackSize(s_.pipeline, from_traversal, from_state, continuation, 1));
  }

  void create_sbt() {
    EmptyRecord host[kGroups];
    for (int i = 0; i < kGroups; ++i) XHD_OPTIX(optixSbtRecordPackHeader(groups_[i], &host[i]));
    XHD_CUDA(cudaMalloc(&records_, sizeof(host)));
    XHD_CUDA(cudaMemcpy(records_, host, sizeof(host), cudaMemcpyHostToDevice));
    const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(records_);
    s_.sbt.raygenRecord = base;
    s_.sbt.missRecordBase = base + sizeof(EmptyRecord);
    s_.sbt.missRecordStrideInBytes = sizeof(EmptyRecord);
    s_.sbt.missRecordCount = 1;
    s_.sbt.hitgroupRecordBase = base + 2 * sizeof(EmptyRecord);
    s_.sbt.hitgroupRecordStrideInBytes = sizeof(EmptyRecord);
    s_.sbt.hitgroupRecordCount = 2;  // record 0 the runs' boxes, 1 the spheres: optixTrace's SBT offset picks
  }

  OptixSession s_;
  OptixPipelineCompileOptions pipeline_options_{};
  OptixModuleCompileOptions module_options_{};
  OptixModule module_ = nullptr;
  OptixModule sphere_module_ = nullptr;
  static constexpr int kGroups = 4;  // raygen, miss, the boxes' hit group, the spheres' hit group
  OptixProgramGroup groups_[kGroups] = {nullptr, nullptr, nullptr, nullptr};
  void* records_ = nullptr;
};

}  // namespace

const OptixDevice& optix_device(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<OptixDevice>> devices;
  static bool initialised = false;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = devices.find(device);
  if (found != devices.end()) return *found->second;
  if (!initialised) {
    init_optix();
    initialised = true;
  }
  take_context_log();
  auto d = std::make_unique<OptixDevice>(create_device(device));
  return *devices.emplace(device, std::move(d)).first->second;
}

const OptixSession& optix_session(int device) {
  const OptixDevice& d = optix_device(device);
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<OptixSession>> sessions;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = sessions.find(device);
  if (found != sessions.end()) return *found->second;
  take_context_log();
  try {
    auto session = std::make_unique<OptixSession>(SessionBuilder(d).build());
    return *sessions.emplace(device, std::move(session)).first->second;
  } catch (const OptixFailure& e) {
    const std::string log = take_context_log();
    throw OptixFailure(e.code, std::string(e.what()) + (log.empty() ? "" : "; context log: " + log));
  }
}

}  // namespace xhd
