import Foundation
import SessionKit

extension WorldTrace {
    /// Requests sent, in order, optionally filtered.
    public func requests(_ matcher: RequestMatcher = .any) -> [HTTPRequest] {
        entries.compactMap { if case .httpRequest(_, let request) = $0.event, matcher.matches(request) { request } else { nil } }
    }

    /// Every transition, in order.
    public var transitions: [SessionTransition] {
        entries.compactMap { if case .transition(let transition) = $0.event { transition } else { nil } }
    }

    /// Every UI event, in order.
    public var uiEvents: [UIEvent] {
        entries.compactMap { if case .ui(let event) = $0.event { event } else { nil } }
    }

    /// Every log record, in order.
    public var logRecords: [LogRecord] {
        entries.compactMap { if case .log(let record) = $0.event { record } else { nil } }
    }

    /// Every applied secure storage operation, in order.
    public var secureStorageOperations: [SecureStorageOperation] {
        entries.compactMap { if case .secureStorage(let operation) = $0.event { operation } else { nil } }
    }

    /// Every preferences operation, in order.
    public var preferencesOperations: [PreferencesOperation] {
        entries.compactMap { if case .preferences(let operation) = $0.event { operation } else { nil } }
    }

    /// Every sign-in prompt, in order.
    public var signInPrompts: [SignInPromptReason] {
        uiEvents.compactMap { if case .signInPromptShown(let reason) = $0 { reason } else { nil } }
    }

    /// Every piece of content shown, in order.
    public var shownContent: [ResourceContent] {
        uiEvents.compactMap { if case .contentShown(let content) = $0 { content } else { nil } }
    }

    /// The sequence number the next entry will get: a mark for the `since:` queries.
    public var mark: Int { entries.count }

    /// Transitions recorded at or after `mark`.
    public func transitions(since mark: Int) -> [SessionTransition] {
        entries.dropFirst(mark).compactMap { if case .transition(let transition) = $0.event { transition } else { nil } }
    }

    /// UI events recorded at or after `mark`.
    public func uiEvents(since mark: Int) -> [UIEvent] {
        entries.dropFirst(mark).compactMap { if case .ui(let event) = $0.event { event } else { nil } }
    }

    /// Sign-in prompts recorded at or after `mark`.
    public func signInPrompts(since mark: Int) -> [SignInPromptReason] {
        uiEvents(since: mark).compactMap { if case .signInPromptShown(let reason) = $0 { reason } else { nil } }
    }

    /// The sequence number of the first entry matching `matches`.
    public func firstIndex(where matches: (Entry) -> Bool) -> Int? {
        entries.first(where: matches)?.sequence
    }

    /// Waits for `count` transitions with this id.
    public func waitForTransition(_ id: SessionTransitionID, count: Int = 1) async {
        await waitUntil(count: count) { if case .transition(let transition) = $0.event { transition.id == id } else { false } }
    }

    /// Waits for `count` log records with this event code.
    public func waitForLog(_ event: String, count: Int = 1) async {
        await waitUntil(count: count) { if case .log(let record) = $0.event { record.event == event } else { false } }
    }

    /// Waits for `count` requests matching `matcher`.
    public func waitForRequests(_ matcher: RequestMatcher, count: Int = 1) async {
        await waitUntil(count: count) { if case .httpRequest(_, let request) = $0.event { matcher.matches(request) } else { false } }
    }

    /// Waits for `count` UI events satisfying `matches`.
    public func waitForUI(count: Int = 1, _ matches: @escaping @Sendable (UIEvent) -> Bool) async {
        await waitUntil(count: count) { if case .ui(let event) = $0.event { matches(event) } else { false } }
    }

    /// Waits for `count` sleeps on the virtual clock.
    public func waitForSleeps(count: Int = 1) async {
        await waitUntil(count: count) { if case .sleep = $0.event { true } else { false } }
    }

    /// A readable dump, for failure messages.
    public var dump: String { entries.map(\.description).joined(separator: "\n") }
}
