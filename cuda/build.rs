// The driver library's SONAME is libcuda.so.1, as NVIDIA's: programs and loaders that record
// or look for that name (ctypes, cuda-python's pathfinder, `ldd`) find it.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    println!("cargo:rerun-if-changed=build.rs");
}
