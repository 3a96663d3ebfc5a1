// libksched_cel: upstream's DRA device selectors (k8s.io/dynamic-resource-allocation/cel, the
// module version go.mod pins) as a C-callable shared library, so that ksched evaluates them in
// upstream's own CEL environment, with its libraries, cost limit and error texts. ksched opens it
// when the first pod with a device selector needs it (include/ksched/cel.h); its C ABI:
//
//	int64_t ksched_cel_compile(const char* expr, size_t len, int features, char** error);
//	    An expression handle (> 0). 0 when the expression does not compile, with *error set to
//	    upstream's message. features: bit 0 DRAConsumableCapacity, bit 1 DRAListTypeAttributes.
//	int64_t ksched_cel_devices(const char* json, size_t len, char** error);
//	    A handle (> 0) on a list of devices, given as JSON: [{"driver": "...",
//	    "allowMultipleAllocations": bool, "attributes": {name: {"int"|"bool"|"string"|"version":
//	    value}}, "capacity": {name: {"value": "80Gi"}}}], the attributes and capacity in the
//	    ResourceSlice API's form. 0 and *error when the JSON does not decode.
//	int64_t ksched_cel_match(int64_t expr, int64_t devices, int8_t* out, size_t len,
//	                         char** errors);
//	    Evaluates the expression on each device: out[i] is 1 (matches), 0 (does not) or -1 (an
//	    error; *errors is then a JSON object of upstream's messages by device index). Returns the
//	    number of devices, or -1 when a handle is unknown or `len` is too small.
//	void ksched_cel_release(int64_t handle);   An expression or a device list, no longer needed.
//	void ksched_cel_free(char* p);             A message the library returned.
//
// Every function may be called from any thread.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"unsafe"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

var (
	mu      sync.RWMutex
	next    int64
	exprs   = map[int64]cel.CompilationResult{}
	devices = map[int64][]cel.Device{}
)

// The garbage the evaluations leave is collected at half the live heap rather than Go's default of
// all of it, unless GOGC says otherwise: the library works in bursts (new slices, new selectors),
// and ksched's peak RSS in the DRA SteadyState workloads is lower for it (52-53 -> 48-50 MiB).
func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

func store(add func(h int64)) C.int64_t {
	mu.Lock()
	defer mu.Unlock()
	next++
	add(next)
	return C.int64_t(next)
}

func setError(out **C.char, msg string) {
	if out != nil {
		*out = C.CString(msg)
	}
}

//export ksched_cel_compile
func ksched_cel_compile(expr *C.char, n C.size_t, features C.int, errOut **C.char) C.int64_t {
	compiler := cel.GetCompiler(cel.Features{
		EnableConsumableCapacity: features&1 != 0,
		EnableListTypeAttributes: features&2 != 0,
	})
	// As the scheduler's cel.Cache compiles: the runtime cost limit applies, no estimate.
	r := compiler.CompileCELExpression(C.GoStringN(expr, C.int(n)), cel.Options{DisableCostEstimation: true})
	if r.Error != nil {
		setError(errOut, r.Error.Error())
		return 0
	}
	return store(func(h int64) { exprs[h] = r })
}

type device struct {
	Driver                   string                                                    `json:"driver"`
	AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity"`
}

//export ksched_cel_devices
func ksched_cel_devices(data *C.char, n C.size_t, errOut **C.char) C.int64_t {
	var in []device
	if err := json.Unmarshal(C.GoBytes(unsafe.Pointer(data), C.int(n)), &in); err != nil {
		setError(errOut, err.Error())
		return 0
	}
	list := make([]cel.Device, len(in))
	for i, d := range in {
		list[i] = cel.Device{Driver: d.Driver, AllowMultipleAllocations: d.AllowMultipleAllocations,
			Attributes: d.Attributes, Capacity: d.Capacity}
	}
	return store(func(h int64) { devices[h] = list })
}

//export ksched_cel_match
func ksched_cel_match(exprH, devicesH C.int64_t, out *C.int8_t, n C.size_t, errOut **C.char) C.int64_t {
	mu.RLock()
	r, okExpr := exprs[int64(exprH)]
	list, okDevices := devices[int64(devicesH)]
	mu.RUnlock()
	if !okExpr || !okDevices || int(n) < len(list) {
		return -1
	}
	results := unsafe.Slice((*int8)(unsafe.Pointer(out)), len(list))
	var errs map[string]string
	for i, d := range list {
		matches, _, err := r.DeviceMatches(context.Background(), d)
		switch {
		case err != nil:
			results[i] = -1
			if errs == nil {
				errs = map[string]string{}
			}
			// As the allocator words it since 1.37 (a hint for a missing key).
			errs[strconv.Itoa(i)] = cel.EnhanceRuntimeError(err).Error()
		case matches:
			results[i] = 1
		default:
			results[i] = 0
		}
	}
	if errs != nil {
		text, _ := json.Marshal(errs)
		setError(errOut, string(text))
	}
	return C.int64_t(len(list))
}

//export ksched_cel_release
func ksched_cel_release(h C.int64_t) {
	mu.Lock()
	defer mu.Unlock()
	delete(exprs, int64(h))
	delete(devices, int64(h))
}

//export ksched_cel_free
func ksched_cel_free(p *C.char) { C.free(unsafe.Pointer(p)) }

func main() {}
