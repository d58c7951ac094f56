package scenarios

// Call kinds: what a Mooncake call does, as expect.dies.in names it. A
// Python faulthandler dump of a death names the caller's function (SGLang's
// batch_set, a PD wrapper's batch_transfer_sync), which maps onto a kind,
// not onto one binding method (explain's deathCall).
const (
	CallSetup    = "setup"
	CallRegister = "register"
	CallPut      = "put"
	CallGet      = "get"
	CallExist    = "exist"
	CallTransfer = "transfer"
	CallOther    = "other"
)

// callKinds: MooncakeDistributedStore's and TransferEngine's Python
// methods (store_py.cpp, transfer_engine_py.cpp) by kind.
var callKinds = map[string]string{
	"setup": CallSetup, "setup_dummy": CallSetup, "init_all": CallSetup, "initialize": CallSetup, "initialize_ext": CallSetup,
	"register_buffer": CallRegister, "register_memory": CallRegister, "unregister_memory": CallRegister, "batch_register_memory": CallRegister, "allocate_managed_buffer": CallRegister,
	"put": CallPut, "put_from": CallPut, "batch_put_from": CallPut, "batch_put_from_multi_buffers": CallPut, "put_parts": CallPut, "put_batch": CallPut, "put_tensor": CallPut,
	"get": CallGet, "get_into": CallGet, "batch_get_into": CallGet, "batch_get_into_multi_buffers": CallGet, "get_buffer": CallGet, "batch_get_buffer": CallGet, "get_tensor": CallGet,
	"is_exist": CallExist, "batch_is_exist": CallExist,
	"transfer_sync_write": CallTransfer, "transfer_sync_read": CallTransfer, "batch_transfer_sync_write": CallTransfer, "batch_transfer_sync_read": CallTransfer,
	"transfer_submit_write": CallTransfer, "batch_transfer_async_write": CallTransfer, "batch_transfer_async_read": CallTransfer,
}

// CallText names a call kind in messages ("a put call"; "no known call"
// for "").
func CallText(kind string) string {
	if kind == "" {
		return "no known call"
	}
	return "a " + kind + " call"
}

// CallKind is method's kind: CallOther for a method of no kind above, ""
// for no method (the call is not known).
func CallKind(method string) string {
	if method == "" {
		return ""
	}
	if k, ok := callKinds[method]; ok {
		return k
	}
	return CallOther
}
