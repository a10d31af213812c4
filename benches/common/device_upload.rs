//! Host words into a device buffer the benches' own streams can use
//! (needs the `cuda` feature).

use cust::memory::DeviceBuffer;

/// `words` copied to a new device buffer. `from_slice` copies on the legacy
/// default stream, which a non-blocking stream does not wait for: the
/// context is synchronized before the buffer is returned.
pub fn upload(words: &[u64]) -> DeviceBuffer<u64> {
    let b = DeviceBuffer::from_slice(words).unwrap();
    cust::context::CurrentContext::synchronize().unwrap();
    b
}
