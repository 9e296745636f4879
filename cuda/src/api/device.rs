//! The device: its count, name, attributes and memory.

use crate::abi::{CUdevice, CUdevprop, CUuuid};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::state;
use std::ffi::c_char;

/// Checks `dev` is the one device (0).
pub fn check_device(dev: CUdevice) -> Res {
    state::driver()?;
    if dev == 0 {
        Ok(())
    } else {
        Err(error::INVALID_DEVICE)
    }
}

unsafe fn write_str(s: &str, to: *mut c_char, len: i32) -> Res {
    if to.is_null() || len <= 0 {
        return Err(error::INVALID_VALUE);
    }
    let n = s.len().min(len as usize - 1);
    std::ptr::copy_nonoverlapping(s.as_ptr().cast::<c_char>(), to, n);
    *to.add(n) = 0;
    Ok(())
}

cuda_api! {
    /// `cuDeviceGet`: device 0 only.
    fn cuDeviceGet(device: *mut CUdevice, ordinal: i32) {
        state::driver()?;
        if ordinal != 0 {
            return Err(error::INVALID_DEVICE);
        }
        out(device, 0)
    }

    /// `cuDeviceGetCount`: one device.
    fn cuDeviceGetCount(count: *mut i32) {
        state::driver()?;
        out(count, 1)
    }

    /// `cuDeviceGetName`.
    fn cuDeviceGetName(name: *mut c_char, len: i32, dev: CUdevice) {
        check_device(dev)?;
        write_str(crate::device::NAME, name, len)
    }

    /// `cuDeviceGetUuid`.
    fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice) {
        check_device(dev)?;
        out(uuid, CUuuid { bytes: crate::device::UUID })
    }

    /// `cuDeviceGetUuid_v2`.
    fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: CUdevice) {
        check_device(dev)?;
        out(uuid, CUuuid { bytes: crate::device::UUID })
    }

    /// `cuDeviceTotalMem_v2`.
    fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) {
        check_device(dev)?;
        out(bytes, state::driver()?.memory as usize)
    }

    /// `cuDeviceGetAttribute`: a GTX 980's answer ([`crate::device::attribute`]).
    fn cuDeviceGetAttribute(value: *mut i32, attrib: i32, dev: CUdevice) {
        check_device(dev)?;
        let v = crate::device::attribute(i64::from(attrib)).ok_or(error::INVALID_VALUE)?;
        out(value, v)
    }

    /// `cuDeviceGetProperties` (deprecated, still answered).
    fn cuDeviceGetProperties(prop: *mut CUdevprop, dev: CUdevice) {
        check_device(dev)?;
        use crate::abi::consts as c;
        let a = |k: i64| crate::device::attribute(k).unwrap_or(0);
        out(prop, CUdevprop {
            maxThreadsPerBlock: a(c::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            maxThreadsDim: [1024, 1024, 64],
            maxGridSize: [2_147_483_647, 65535, 65535],
            sharedMemPerBlock: a(c::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
            totalConstantMemory: a(c::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
            SIMDWidth: 32,
            memPitch: a(c::CU_DEVICE_ATTRIBUTE_MAX_PITCH),
            regsPerBlock: a(c::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
            clockRate: a(c::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
            textureAlign: a(c::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
        })
    }

    /// `cuDeviceComputeCapability` (deprecated): 5.2.
    fn cuDeviceComputeCapability(major: *mut i32, minor: *mut i32, dev: CUdevice) {
        check_device(dev)?;
        out(major, crate::device::COMPUTE_CAPABILITY.0)?;
        out(minor, crate::device::COMPUTE_CAPABILITY.1)
    }

    /// `cuDeviceGetPCIBusId`.
    fn cuDeviceGetPCIBusId(id: *mut c_char, len: i32, dev: CUdevice) {
        check_device(dev)?;
        write_str("0000:01:00.0", id, len)
    }

    /// `cuDeviceGetByPCIBusId`.
    fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, id: *const c_char) {
        state::driver()?;
        if id.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let s = std::ffi::CStr::from_ptr(id).to_string_lossy().to_ascii_lowercase();
        if s == "0000:01:00.0" || s == "01:00.0" || s == "0:1:0.0" {
            out(dev, 0)
        } else {
            Err(error::INVALID_DEVICE)
        }
    }

    /// `cuDeviceCanAccessPeer`: there is no other device.
    fn cuDeviceCanAccessPeer(can: *mut i32, dev: CUdevice, peer: CUdevice) {
        check_device(dev)?;
        check_device(peer)?;
        out(can, 0)
    }

    /// `cuDeviceGetTexture1DLinearMaxWidth`.
    fn cuDeviceGetTexture1DLinearMaxWidth(width: *mut usize, format: i32, channels: u32, dev: CUdevice) {
        let _ = (format, channels);
        check_device(dev)?;
        out(width, 134_217_728)
    }
}
