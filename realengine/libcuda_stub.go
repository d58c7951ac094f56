package realengine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// libcudaStubFuncs are the driver API functions the 0.3.14 cuda13 wheel's
// ELFs import (nm -D --undefined-only over every .so and binary in it;
// 32 functions). The dynamic linker resolves them at load time, so each
// must exist; none is called on the TCP path.
var libcudaStubFuncs = []string{
	"cuCtxGetCurrent", "cuCtxGetDevice", "cuCtxSetCurrent", "cuDeviceGet",
	"cuDeviceGetAttribute", "cuDeviceGetPCIBusId", "cuDevicePrimaryCtxRelease_v2",
	"cuDevicePrimaryCtxRetain", "cuFuncSetAttribute", "cuGetErrorName", "cuGetErrorString",
	"cuInit", "cuLaunchKernel", "cuLaunchKernelEx", "cuMemAddressFree", "cuMemAddressReserve",
	"cuMemCreate", "cuMemExportToShareableHandle", "cuMemGetAddressRange_v2",
	"cuMemGetAllocationGranularity", "cuMemGetHandleForAddressRange",
	"cuMemImportFromShareableHandle", "cuMemMap", "cuMemRelease", "cuMemRetainAllocationHandle",
	"cuMemSetAccess", "cuMemUnmap", "cuModuleGetFunction", "cuModuleLoadDataEx", "cuModuleUnload",
	"cuPointerGetAttribute", "cuPointerSetAttribute",
}

// cudaErrorNoDevice is CUDA_ERROR_NO_DEVICE (cuda.h): what a real driver
// answers on a machine without a GPU.
const cudaErrorNoDevice = 100

// libcudaStubSource is the C source of the stub: every function takes
// anything and returns CUDA_ERROR_NO_DEVICE (variadic prototypes, so no
// cuda.h is needed).
func libcudaStubSource() string {
	var b strings.Builder
	b.WriteString("/* faultlab: stub libcuda.so.1 for CUDA wheels on CPU-only machines.\n" +
		" * Every driver call fails as without a GPU (CUDA_ERROR_NO_DEVICE). */\n")
	for _, f := range libcudaStubFuncs {
		fmt.Fprintf(&b, "int %s() { return %d; }\n", f, cudaErrorNoDevice)
	}
	return b.String()
}

// buildLibcudaStub compiles the stub into dir/libcuda.so.1 with gcc.
func buildLibcudaStub(ctx context.Context, dir string) error {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return fmt.Errorf("build stub libcuda.so.1: gcc not found (apt-get install -y gcc): %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, "libcuda_stub.c")
	if err := os.WriteFile(src, []byte(libcudaStubSource()), 0o644); err != nil {
		return fmt.Errorf("build stub libcuda.so.1: %w", err)
	}
	out, err := run(ctx, nil, gcc, "-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1",
		"-o", filepath.Join(dir, "libcuda.so.1"), src)
	if err != nil {
		return fmt.Errorf("build stub libcuda.so.1: gcc: %w\n%s", err, tail(out, 6))
	}
	return nil
}
