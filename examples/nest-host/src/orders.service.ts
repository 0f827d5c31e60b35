import { Injectable } from '@nestjs/common';

/** The host's own business service (stands in for its database). */
@Injectable()
export class OrdersService {
  private readonly orders = new Map([
    ['A-17', { status: 'shipped', carrier: 'DHL' }],
    ['B-42', { status: 'packing', carrier: null }],
  ]);

  status(orderId: string) {
    return this.orders.get(orderId) ?? null;
  }
}
