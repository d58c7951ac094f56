package realengine

// CheckDisk exposes checkDisk to the external test package.
var CheckDisk = checkDisk
