import ConformanceProtocol

/// The device's secure storage and preferences. They survive process death; the lock state follows iOS:
/// `whenUnlocked` items are unreadable and unwritable while locked, `afterFirstUnlock` ones are fine once
/// the device was unlocked after boot.
struct DeviceStorage: Sendable {
    struct Item: Sendable, Hashable {
        var value: String
        var accessibility: Accessibility
    }

    private(set) var secure: [String: Item] = [:]
    private(set) var preferences: [String: String] = [:]
    var locked = false
    var unlockedSinceBoot = true

    enum Outcome: Sendable, Equatable {
        case value(String?)
        case done
        case locked
    }

    func accessible(_ accessibility: Accessibility) -> Bool {
        switch accessibility {
        case .whenUnlocked: !locked
        case .afterFirstUnlock: unlockedSinceBoot
        }
    }

    mutating func secure(_ operation: StorageOperation, key: String, value: String?, accessibility: Accessibility?) -> Outcome {
        switch operation {
        case .get:
            guard let item = secure[key] else { return .value(nil) }
            return accessible(item.accessibility) ? .value(item.value) : .locked
        case .set:
            let accessibility = accessibility ?? .whenUnlocked
            guard accessible(accessibility) else { return .locked }
            secure[key] = Item(value: value ?? "", accessibility: accessibility)
            return .done
        case .delete:
            if let item = secure[key], !accessible(item.accessibility) { return .locked }
            secure[key] = nil
            return .done
        }
    }

    mutating func preference(_ operation: StorageOperation, key: String, value: String?) -> Outcome {
        switch operation {
        case .get: return .value(preferences[key])
        case .set:
            preferences[key] = value
            return .done
        case .delete:
            preferences[key] = nil
            return .done
        }
    }

    /// Everything stored in secure storage, as one text, for checks that look for token values.
    var secureText: String { secure.keys.sorted().map { secure[$0]!.value }.joined(separator: "\n") }
}
