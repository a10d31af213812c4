//! Compiles Curio's proto (kept unchanged in proto/) into the server and
//! client of `cuzk.v1.ProvingEngine`, without protoc: protox parses it in
//! Rust and tonic-build generates from the descriptors.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/cuzk/v1/proving.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_build::configure().build_server(true).build_client(true).compile_fds(descriptors)?;
    Ok(())
}
