//! The state of a request on screen (after rerun): nothing flickers while it reloads, and a
//! failure keeps the previous value beside the error.

/// A value that comes from a request.
#[derive(Debug, Clone, Default)]
pub enum Requested<T, E> {
    /// Never asked for.
    #[default]
    Idle,
    /// Asked for; the previous value stays shown meanwhile.
    Pending {
        /// What was shown before.
        previous: Option<T>,
    },
    /// Arrived.
    Done(T),
    /// Failed; the previous value stays shown beside the error.
    Failed {
        /// What was shown before.
        previous: Option<T>,
        error: E,
    },
}

impl<T, E> Requested<T, E> {
    /// The value to show: the current one, or the previous while pending or failed.
    pub fn value(&self) -> Option<&T> {
        match self {
            Requested::Done(value) => Some(value),
            Requested::Pending { previous } | Requested::Failed { previous, .. } => previous.as_ref(),
            Requested::Idle => None,
        }
    }

    /// The value to show, to change.
    pub fn value_mut(&mut self) -> Option<&mut T> {
        match self {
            Requested::Done(value) => Some(value),
            Requested::Pending { previous } | Requested::Failed { previous, .. } => previous.as_mut(),
            Requested::Idle => None,
        }
    }

    /// Whether a request is under way.
    pub fn is_pending(&self) -> bool {
        matches!(self, Requested::Pending { .. })
    }

    /// The error, when the last request failed.
    pub fn error(&self) -> Option<&E> {
        match self {
            Requested::Failed { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Marks a new request, keeping the value shown.
    pub fn start(&mut self) {
        let previous = self.take_value();
        *self = Requested::Pending { previous };
    }

    /// Records the outcome of the request.
    pub fn finish(&mut self, result: Result<T, E>) {
        *self = match result {
            Ok(value) => Requested::Done(value),
            Err(error) => Requested::Failed { previous: self.take_value(), error },
        };
    }

    fn take_value(&mut self) -> Option<T> {
        match std::mem::take(self) {
            Requested::Done(value) => Some(value),
            Requested::Pending { previous } | Requested::Failed { previous, .. } => previous,
            Requested::Idle => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Requested;

    #[test]
    fn keeps_the_previous_value_while_pending_and_after_a_failure() {
        let mut state: Requested<u32, &str> = Requested::default();
        state.start();
        state.finish(Ok(1));
        state.start();
        assert_eq!(state.value(), Some(&1));
        assert!(state.is_pending());
        state.finish(Err("boom"));
        assert_eq!((state.value(), state.error()), (Some(&1), Some(&"boom")));
    }
}
