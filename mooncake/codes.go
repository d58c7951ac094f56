// Package mooncake holds Mooncake facts as data: error codes, version
// profiles, setup signatures and the pybind11 TypeError text, log lines.
// Sources (Mooncake's types.h at each tag) are cited in docs/ARCHITECTURE.md.
package mooncake

import "fmt"

// ErrorCode is mooncake-store's `enum class ErrorCode : int32_t` (types.h).
type ErrorCode int

// Error makes an ErrorCode usable as a Go error inside the models.
func (c ErrorCode) Error() string { return fmt.Sprintf("%s(%d)", c.Name(), int(c)) }

// Name is the enum identifier (types.cpp toString).
func (c ErrorCode) Name() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("UNKNOWN_ERROR_CODE_%d", int(c))
}

const (
	OK                            ErrorCode = 0
	INTERNAL_ERROR                ErrorCode = -1
	BUFFER_OVERFLOW               ErrorCode = -10
	SHARD_INDEX_OUT_OF_RANGE      ErrorCode = -100
	SEGMENT_NOT_FOUND             ErrorCode = -101
	SEGMENT_ALREADY_EXISTS        ErrorCode = -102
	CLIENT_NOT_FOUND              ErrorCode = -103
	NO_AVAILABLE_HANDLE           ErrorCode = -200
	INVALID_VERSION               ErrorCode = -300
	INVALID_KEY                   ErrorCode = -400
	WRITE_FAIL                    ErrorCode = -500
	INVALID_PARAMS                ErrorCode = -600
	ILLEGAL_CLIENT                ErrorCode = -601
	INVALID_WRITE                 ErrorCode = -700
	INVALID_READ                  ErrorCode = -701
	INVALID_REPLICA               ErrorCode = -702
	REPLICA_IS_NOT_READY          ErrorCode = -703
	OBJECT_NOT_FOUND              ErrorCode = -704
	OBJECT_ALREADY_EXISTS         ErrorCode = -705
	OBJECT_HAS_LEASE              ErrorCode = -706
	LEASE_EXPIRED                 ErrorCode = -707
	OBJECT_HAS_REPLICATION_TASK   ErrorCode = -708
	OBJECT_NO_REPLICATION_TASK    ErrorCode = -709
	REPLICA_NOT_FOUND             ErrorCode = -710
	REPLICA_ALREADY_EXISTS        ErrorCode = -711
	REPLICA_IS_GONE               ErrorCode = -712
	REPLICA_NOT_IN_LOCAL_MEMORY   ErrorCode = -713
	OBJECT_REPLICA_BUSY           ErrorCode = -714
	TRANSFER_FAIL                 ErrorCode = -800
	CHECKSUM_MISMATCH             ErrorCode = -801
	RPC_FAIL                      ErrorCode = -900
	RPC_TIMEOUT                   ErrorCode = -901
	ETCD_OPERATION_ERROR          ErrorCode = -1000
	ETCD_KEY_NOT_EXIST            ErrorCode = -1001
	ETCD_TRANSACTION_FAIL         ErrorCode = -1002
	ETCD_CTX_CANCELLED            ErrorCode = -1003
	OPLOG_ENTRY_NOT_FOUND         ErrorCode = -1004
	K8S_LEASE_OPERATION_ERROR     ErrorCode = -1005
	K8S_LEASE_NOT_FOUND           ErrorCode = -1006
	INCOMPLETE_OPLOG_CATCH_UP     ErrorCode = -1007
	UNAVAILABLE_IN_CURRENT_STATUS ErrorCode = -1010
	UNAVAILABLE_IN_CURRENT_MODE   ErrorCode = -1011
	NOT_SUPPORTED                 ErrorCode = -1012
	FILE_NOT_FOUND                ErrorCode = -1100
	FILE_OPEN_FAIL                ErrorCode = -1101
	FILE_READ_FAIL                ErrorCode = -1102
	FILE_WRITE_FAIL               ErrorCode = -1103
	FILE_INVALID_BUFFER           ErrorCode = -1104
	FILE_LOCK_FAIL                ErrorCode = -1105
	FILE_INVALID_HANDLE           ErrorCode = -1106
	BUCKET_NOT_FOUND              ErrorCode = -1200
	BUCKET_ALREADY_EXISTS         ErrorCode = -1201
	KEYS_EXCEED_BUCKET_LIMIT      ErrorCode = -1202
	KEYS_ULTRA_LIMIT              ErrorCode = -1203
	UNABLE_OFFLOAD                ErrorCode = -1300
	UNABLE_OFFLOADING             ErrorCode = -1301
	TASK_NOT_FOUND                ErrorCode = -1400
	TASK_PENDING_LIMIT_EXCEEDED   ErrorCode = -1401
	JOB_NOT_FOUND                 ErrorCode = -1402
	SERIALIZE_UNSUPPORTED         ErrorCode = -1500
	SERIALIZE_FAIL                ErrorCode = -1501
	DESERIALIZE_FAIL              ErrorCode = -1502
	PERSISTENT_FAIL               ErrorCode = -1503
	DFS_NETWORK_TIMEOUT           ErrorCode = -1600
	DFS_SERVICE_UNAVAILABLE       ErrorCode = -1601
	DFS_QUOTA_EXCEEDED            ErrorCode = -1602
	DFS_PERMISSION_DENIED         ErrorCode = -1603
	DFS_STALE_HANDLE              ErrorCode = -1604
	DFS_PARTIAL_WRITE             ErrorCode = -1605
	TENANT_QUOTA_EXCEEDED         ErrorCode = -1700
	TENANT_NOT_REGISTERED         ErrorCode = -1701
	TENANT_NOT_EMPTY              ErrorCode = -1702
)

var codeNames = map[ErrorCode]string{
	OK: "OK", INTERNAL_ERROR: "INTERNAL_ERROR", BUFFER_OVERFLOW: "BUFFER_OVERFLOW",
	SHARD_INDEX_OUT_OF_RANGE: "SHARD_INDEX_OUT_OF_RANGE", SEGMENT_NOT_FOUND: "SEGMENT_NOT_FOUND",
	SEGMENT_ALREADY_EXISTS: "SEGMENT_ALREADY_EXISTS", CLIENT_NOT_FOUND: "CLIENT_NOT_FOUND",
	NO_AVAILABLE_HANDLE: "NO_AVAILABLE_HANDLE", INVALID_VERSION: "INVALID_VERSION", INVALID_KEY: "INVALID_KEY",
	WRITE_FAIL: "WRITE_FAIL", INVALID_PARAMS: "INVALID_PARAMS", ILLEGAL_CLIENT: "ILLEGAL_CLIENT",
	INVALID_WRITE: "INVALID_WRITE", INVALID_READ: "INVALID_READ", INVALID_REPLICA: "INVALID_REPLICA",
	REPLICA_IS_NOT_READY: "REPLICA_IS_NOT_READY", OBJECT_NOT_FOUND: "OBJECT_NOT_FOUND",
	OBJECT_ALREADY_EXISTS: "OBJECT_ALREADY_EXISTS", OBJECT_HAS_LEASE: "OBJECT_HAS_LEASE", LEASE_EXPIRED: "LEASE_EXPIRED",
	OBJECT_HAS_REPLICATION_TASK: "OBJECT_HAS_REPLICATION_TASK", OBJECT_NO_REPLICATION_TASK: "OBJECT_NO_REPLICATION_TASK",
	REPLICA_NOT_FOUND: "REPLICA_NOT_FOUND", REPLICA_ALREADY_EXISTS: "REPLICA_ALREADY_EXISTS", REPLICA_IS_GONE: "REPLICA_IS_GONE",
	REPLICA_NOT_IN_LOCAL_MEMORY: "REPLICA_NOT_IN_LOCAL_MEMORY", OBJECT_REPLICA_BUSY: "OBJECT_REPLICA_BUSY",
	TRANSFER_FAIL: "TRANSFER_FAIL", CHECKSUM_MISMATCH: "CHECKSUM_MISMATCH", RPC_FAIL: "RPC_FAIL", RPC_TIMEOUT: "RPC_TIMEOUT",
	ETCD_OPERATION_ERROR: "ETCD_OPERATION_ERROR", ETCD_KEY_NOT_EXIST: "ETCD_KEY_NOT_EXIST",
	ETCD_TRANSACTION_FAIL: "ETCD_TRANSACTION_FAIL", ETCD_CTX_CANCELLED: "ETCD_CTX_CANCELLED",
	OPLOG_ENTRY_NOT_FOUND: "OPLOG_ENTRY_NOT_FOUND", K8S_LEASE_OPERATION_ERROR: "K8S_LEASE_OPERATION_ERROR",
	K8S_LEASE_NOT_FOUND: "K8S_LEASE_NOT_FOUND", INCOMPLETE_OPLOG_CATCH_UP: "INCOMPLETE_OPLOG_CATCH_UP",
	UNAVAILABLE_IN_CURRENT_STATUS: "UNAVAILABLE_IN_CURRENT_STATUS", UNAVAILABLE_IN_CURRENT_MODE: "UNAVAILABLE_IN_CURRENT_MODE",
	NOT_SUPPORTED: "NOT_SUPPORTED", FILE_NOT_FOUND: "FILE_NOT_FOUND", FILE_OPEN_FAIL: "FILE_OPEN_FAIL",
	FILE_READ_FAIL: "FILE_READ_FAIL", FILE_WRITE_FAIL: "FILE_WRITE_FAIL", FILE_INVALID_BUFFER: "FILE_INVALID_BUFFER",
	FILE_LOCK_FAIL: "FILE_LOCK_FAIL", FILE_INVALID_HANDLE: "FILE_INVALID_HANDLE", BUCKET_NOT_FOUND: "BUCKET_NOT_FOUND",
	BUCKET_ALREADY_EXISTS: "BUCKET_ALREADY_EXISTS", KEYS_EXCEED_BUCKET_LIMIT: "KEYS_EXCEED_BUCKET_LIMIT",
	KEYS_ULTRA_LIMIT: "KEYS_ULTRA_LIMIT", UNABLE_OFFLOAD: "UNABLE_OFFLOAD", UNABLE_OFFLOADING: "UNABLE_OFFLOADING",
	TASK_NOT_FOUND: "TASK_NOT_FOUND", TASK_PENDING_LIMIT_EXCEEDED: "TASK_PENDING_LIMIT_EXCEEDED", JOB_NOT_FOUND: "JOB_NOT_FOUND",
	SERIALIZE_UNSUPPORTED: "SERIALIZE_UNSUPPORTED", SERIALIZE_FAIL: "SERIALIZE_FAIL", DESERIALIZE_FAIL: "DESERIALIZE_FAIL",
	PERSISTENT_FAIL: "PERSISTENT_FAIL", DFS_NETWORK_TIMEOUT: "DFS_NETWORK_TIMEOUT",
	DFS_SERVICE_UNAVAILABLE: "DFS_SERVICE_UNAVAILABLE", DFS_QUOTA_EXCEEDED: "DFS_QUOTA_EXCEEDED",
	DFS_PERMISSION_DENIED: "DFS_PERMISSION_DENIED", DFS_STALE_HANDLE: "DFS_STALE_HANDLE", DFS_PARTIAL_WRITE: "DFS_PARTIAL_WRITE",
	TENANT_QUOTA_EXCEEDED: "TENANT_QUOTA_EXCEEDED", TENANT_NOT_REGISTERED: "TENANT_NOT_REGISTERED", TENANT_NOT_EMPTY: "TENANT_NOT_EMPTY",
}

// Codes returns every known code, sorted by value descending (OK first).
func Codes() []ErrorCode {
	out := make([]ErrorCode, 0, len(codeNames))
	for c := range codeNames {
		out = append(out, c)
	}
	// Sorting decides the order; map iteration does not.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] > out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// CodeByName looks an ErrorCode up by its enum identifier.
func CodeByName(name string) (ErrorCode, bool) {
	for c, n := range codeNames {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// Transfer engine error codes (mooncake-transfer-engine/include/error.h).
const (
	ERR_INVALID_ARGUMENT       = -1
	ERR_TOO_MANY_REQUESTS      = -2
	ERR_ADDRESS_NOT_REGISTERED = -3
	ERR_BATCH_BUSY             = -4
	ERR_DEVICE_NOT_FOUND       = -6
	ERR_ADDRESS_OVERLAPPED     = -7
	ERR_DNS                    = -101
	ERR_SOCKET                 = -102
	ERR_MALFORMED_JSON         = -103
	ERR_REJECT_HANDSHAKE       = -104
	ERR_METADATA               = -200
	ERR_ENDPOINT               = -201
	ERR_CONTEXT                = -202
	ERR_NUMA                   = -300
	ERR_CLOCK                  = -301
	ERR_MEMORY                 = -302
	ERR_NOT_IMPLEMENTED        = -303
)

// PutNoSpaceHelper is types.h's PUT_NO_SPACE_HELPER_STR (v0.3.7+), appended
// to every NO_AVAILABLE_HANDLE warning of a put.
const PutNoSpaceHelper = " due to insufficient space. Consider lowering eviction_high_watermark_ratio or mounting more segments."
