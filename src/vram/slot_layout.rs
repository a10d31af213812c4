//! Where a witness lives in a worker's VRAM slot.

use crate::parameters::params::QueryLengths;

pub(crate) const FR_WORDS: usize = 4;

/// Where each part of a witness lives in a slot, in u64 words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotLayout {
    /// Evaluation domain size 2^k: a, b and c are each padded to it.
    pub domain: usize,
    /// Public inputs, the constant ONE included.
    pub inputs: usize,
    /// Input count (with ONE) + aux count: the scalars, inputs first.
    pub scalars: usize,
    /// Words of one density bitmap over the aux variables.
    pub aux_density_words: usize,
    /// Words of the B-input density bitmap.
    pub input_density_words: usize,
    /// The scalars are not uploaded with the witness: a compute copies
    /// them into c's region once the H step, which wrote its output over a
    /// (`VramPlan::scalars_late`), is done with it; the slot then holds
    /// a, b, c and the densities alone. (b's region, which the H step is
    /// done with before c's, takes the MSMs' staging buffers: their first
    /// pieces are copied while c's inverse runs.)
    pub late_scalars: bool,
}

impl SlotLayout {
    /// The layout of the witness that parameters of these lengths prove.
    pub fn for_params(lengths: &QueryLengths) -> Self {
        let (inputs, aux) = (lengths.ic, lengths.l);
        SlotLayout {
            domain: lengths.h + 1,
            inputs,
            scalars: inputs + aux,
            aux_density_words: aux.div_ceil(64),
            input_density_words: inputs.div_ceil(64),
            late_scalars: false,
        }
    }
    /// Aux variables.
    pub fn aux(&self) -> usize {
        self.scalars - self.inputs
    }
    /// a, b, c: `domain` Fr each, back to back.
    pub fn abc(&self, which: usize) -> usize {
        which * self.domain * FR_WORDS
    }
    /// Where the scalars (inputs, then aux) begin: after a, b, c, or with
    /// late scalars in c's region.
    pub fn scalars_at(&self) -> usize {
        if self.late_scalars {
            self.abc(2)
        } else {
            self.abc(3)
        }
    }
    /// Where the aux scalars begin.
    pub fn aux_scalars_at(&self) -> usize {
        self.scalars_at() + self.inputs * FR_WORDS
    }
    /// Where the A-aux density bitmap begins.
    pub fn a_aux_density_at(&self) -> usize {
        if self.late_scalars {
            self.abc(3)
        } else {
            self.scalars_at() + self.scalars * FR_WORDS
        }
    }

    /// Where the MSMs' arena and staging buffers begin when they lie in
    /// the slot: after the H output (over a, when `h_in_slot`), in what
    /// the late scalars (in c) leave.
    pub fn msm_in_slot_at(&self, h_in_slot: bool) -> usize {
        self.abc(h_in_slot as usize)
    }

    /// The words of a, b, c that nothing uses from the end of the H step
    /// to the end of the proof: past the H output, the MSMs' arena and
    /// staging buffers when they lie in the slot (`msm_in_slot_words`),
    /// before the late scalars.
    pub fn idle_after_h_step(&self, h_in_slot: bool, msm_in_slot_words: Option<usize>) -> std::ops::Range<usize> {
        let end = self.abc(if self.late_scalars { 2 } else { 3 });
        let from = self.msm_in_slot_at(h_in_slot) + msm_in_slot_words.unwrap_or(0);
        from.min(end)..end
    }

    /// Where staging buffers of `staging_words` fit in
    /// [`Self::idle_after_h_step`]: more room for streamed bases to be
    /// copied ahead of their MSMs, from the H step's end on.
    pub fn idle_staging_buffers(&self, h_in_slot: bool, msm_in_slot_words: Option<usize>, staging_words: usize) -> Vec<usize> {
        let idle = self.idle_after_h_step(h_in_slot, msm_in_slot_words);
        if staging_words == 0 {
            return Vec::new();
        }
        (0..idle.len() / staging_words).map(|k| idle.start + k * staging_words).collect()
    }

    /// Whether the scalars fit in one of a, b, c (late scalars need it).
    pub fn scalars_fit_a_region(&self) -> bool {
        self.scalars <= self.domain
    }
    /// Where the B-aux density bitmap begins.
    pub fn b_aux_density_at(&self) -> usize {
        self.a_aux_density_at() + self.aux_density_words
    }
    /// Where the B-input density bitmap begins.
    pub fn b_input_density_at(&self) -> usize {
        self.b_aux_density_at() + self.aux_density_words
    }
    /// Words of the whole slot.
    pub fn words(&self) -> usize {
        self.b_input_density_at() + self.input_density_words
    }
    /// Words of the H coefficients (2^k − 1 Fr; one word when there are none,
    /// as CUDA cannot allocate zero bytes).
    pub(crate) fn h_words(&self) -> usize {
        ((self.domain - 1) * FR_WORDS).max(1)
    }
    /// log2 of the NTT tables' domain (at least 1: tables for 2 cover 1).
    pub(crate) fn ntt_log(&self) -> u32 {
        self.domain.trailing_zeros().max(1)
    }
}
